package cluster

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// serverUser is the OS account the cluster runs as when Agent Deck runs as root: PostgreSQL
// refuses to run as root.
const serverUser = "postgres"

// account is the OS user the server programs run as; nil means the current user.
type account struct {
	name     string
	uid, gid int
}

// lookupAccount returns the account to run the server as: nil unless running as root.
func lookupAccount() (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(serverUser)
	if err != nil {
		return nil, fmt.Errorf("running as root, PostgreSQL must run as the %q system user, "+
			"which does not exist (create it, e.g. `apt-get install postgresql` or "+
			"`useradd --system postgres`, or set AGENT_DECK_DATABASE_URL): %w", serverUser, err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("user %q has a non-numeric uid or gid", serverUser)
	}
	return &account{name: u.Username, uid: uid, gid: gid}, nil
}

// command builds a command that runs as the account (as the current user when a is nil).
// Credentials are set directly rather than through runuser, so no extra program is needed.
func (a *account) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = "/"
	cmd.Env = os.Environ()
	if a != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{
			Credential: &syscall.Credential{Uid: uint32(a.uid), Gid: uint32(a.gid)},
		}
		cmd.Env = append(cmd.Env, "HOME="+os.TempDir(), "USER="+a.name, "LOGNAME="+a.name)
	}
	return cmd
}

// makeDir creates dir (mode 0700) and hands it to the account.
func (a *account) makeDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if a == nil {
		return nil
	}
	return os.Chown(dir, a.uid, a.gid)
}

// chownTree hands every file under dir to the account (after a previous run as another user).
func (a *account) chownTree(dir string) error {
	if a == nil {
		return nil
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, a.uid, a.gid)
	})
}

// ErrUnreachable means the server account cannot reach a directory because one above it is
// closed to it. Agent Deck never opens the user's directories up (it used to add o+x to the home
// and every parent); the message names the directory.
var ErrUnreachable = errors.New("unreachable for the PostgreSQL user")

// checkReachable fails when the account cannot traverse every existing ancestor of dir as they
// are. Missing ancestors do not count: they are created traversable.
func (a *account) checkReachable(dir string) error {
	if a == nil {
		return nil
	}
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		info, err := os.Stat(p)
		if err == nil && !a.canTraverse(info) {
			return fmt.Errorf("%s: the %s user cannot enter %s (mode %#o): %w", dir, a.name, p,
				info.Mode().Perm(), ErrUnreachable)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

func (a *account) canTraverse(info fs.FileInfo) bool {
	perm := info.Mode().Perm()
	st, ok := info.Sys().(*syscall.Stat_t)
	switch {
	case ok && int(st.Uid) == a.uid:
		return perm&0o100 != 0
	case ok && int(st.Gid) == a.gid:
		return perm&0o010 != 0
	default:
		return perm&0o001 != 0
	}
}

// owns reports whether the account owns the file.
func (a *account) owns(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == a.uid
}
