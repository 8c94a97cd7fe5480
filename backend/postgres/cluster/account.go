package cluster

import (
	"fmt"
	"io/fs"
	"log/slog"
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

// ensureTraversable adds o+x to the ancestors of dir the account could not otherwise enter,
// logging each change once: the server must reach its data and socket directories.
func (a *account) ensureTraversable(dir string, log *slog.Logger) error {
	if a == nil {
		return nil
	}
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		info, err := os.Stat(p)
		if err != nil {
			return err
		}
		if !a.canTraverse(info) {
			mode := info.Mode().Perm() | 0o001
			if err := os.Chmod(p, mode); err != nil {
				return fmt.Errorf("make %s traversable for user %s: %w", p, a.name, err)
			}
			log.Info("made a directory traversable for the PostgreSQL user",
				"dir", p, "user", a.name, "mode", fmt.Sprintf("%#o", mode))
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
