package cluster

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ErrNoBinaries means no PostgreSQL server binaries were found; its message says what to
// install or set instead.
var ErrNoBinaries = errors.New("no PostgreSQL server binaries (initdb, pg_ctl) found on PATH, " +
	"via `pg_config --bindir` or in /usr/lib/postgresql/*/bin: install them " +
	"(Debian/Ubuntu: `apt-get install postgresql`; Fedora: `dnf install postgresql-server`; " +
	"macOS: `brew install postgresql`) or set AGENT_DECK_DATABASE_URL to an existing database")

// debianBinGlob is where Debian and Ubuntu install the server binaries, one dir per version.
const debianBinGlob = "/usr/lib/postgresql/*/bin"

// FindBinDir returns the directory holding initdb and pg_ctl: PATH first, then
// `pg_config --bindir`, then the highest version under /usr/lib/postgresql. Symlinks are
// resolved so the server binary is found beside them.
func FindBinDir() (string, error) {
	var candidates []string
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := exec.LookPath("pg_ctl"); err == nil {
			candidates = append(candidates, filepath.Dir(resolve(p)))
		}
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		candidates = append(candidates, strings.TrimSpace(string(out)))
	}
	candidates = append(candidates, debianBinDirs()...)
	for _, dir := range candidates {
		if hasServerBinaries(dir) {
			return dir, nil
		}
	}
	return "", ErrNoBinaries
}

func resolve(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}

func hasServerBinaries(dir string) bool {
	if dir == "" {
		return false
	}
	for _, name := range []string{"initdb", "pg_ctl", "postgres"} {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}

// debianBinDirs lists /usr/lib/postgresql/<version>/bin, highest version first.
func debianBinDirs() []string {
	dirs, _ := filepath.Glob(debianBinGlob)
	version := func(dir string) float64 {
		v, err := strconv.ParseFloat(filepath.Base(filepath.Dir(dir)), 64)
		if err != nil {
			return -1
		}
		return v
	}
	sort.SliceStable(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	return dirs
}

// tool returns the path of a client or server program, preferring the server's bin dir.
func tool(binDir, name string) (string, error) {
	p := filepath.Join(binDir, name)
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%s not found in %s or on PATH: %w", name, binDir, ErrNoBinaries)
}
