package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/agent-deck/agent-deck/cli/client"
)

// lockFile is held (flock, exclusive) by the one serve that owns a data home, for its whole life.
// The kernel drops the lock when the process dies however it dies, so a crash never leaves a home
// locked. The file also names the owner (its PID, and its URL once it listens) for the refusal.
const lockFile = "serve.lock"

// homeLock is the held lock on a data home.
type homeLock struct {
	f *os.File
}

// HomeLockedError says another serve owns the data home; nothing was changed.
type HomeLockedError struct {
	Home  string
	Owner client.ServerInfo
}

func (e *HomeLockedError) Error() string {
	who := "another agent-deck serve"
	if e.Owner.PID > 0 {
		who += fmt.Sprintf(" (pid %d", e.Owner.PID)
		if e.Owner.URL != "" {
			who += ", " + e.Owner.URL
		}
		who += ")"
	}
	return fmt.Sprintf("%s already runs on the data home %s; stop it first, or use another --home "+
		"(AGENT_DECK_HOME)", who, e.Home)
}

// lockHome takes the data home's lock without waiting. It is the first thing serve does, before
// it touches the database, server.json or anything else in the home, so a second serve changes
// nothing: it reports who owns the home and exits.
func lockHome(home string) (*homeLock, error) {
	path := filepath.Join(home, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the data home lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &HomeLockedError{Home: home, Owner: lockOwner(home)}
		}
		return nil, fmt.Errorf("lock the data home %s: %w", path, err)
	}
	l := &homeLock{f: f}
	if err := l.record(client.ServerInfo{PID: os.Getpid()}); err != nil {
		l.release()
		return nil, err
	}
	return l, nil
}

// record writes the owner into the lock file in place: renaming a new file over it would swap
// the inode and with it the lock.
func (l *homeLock) record(info client.ServerInfo) error {
	data, err := json.Marshal(info)
	if err != nil {
		return err
	}
	if err := l.f.Truncate(0); err != nil {
		return fmt.Errorf("write the data home lock: %w", err)
	}
	if _, err := l.f.WriteAt(data, 0); err != nil {
		return fmt.Errorf("write the data home lock: %w", err)
	}
	return nil
}

// release drops the lock. The file stays: removing it could let a serve that opened it just now
// lock an unlinked inode while a third creates and locks a new file.
func (l *homeLock) release() {
	_ = l.f.Close()
}

// lockOwner reads who holds the lock: the lock file, else server.json.
func lockOwner(home string) client.ServerInfo {
	var info client.ServerInfo
	if data, err := os.ReadFile(filepath.Join(home, lockFile)); err == nil && json.Unmarshal(data, &info) == nil && info.URL != "" {
		return info
	}
	if si, ok := client.ReadServerInfo(home); ok && (info.PID == 0 || si.PID == info.PID) {
		return si
	}
	return info
}
