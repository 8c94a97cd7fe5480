package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

// BuildInfo is what this binary knows about how it was built: the module version when it was
// installed from a tagged module, else "devel" with the VCS revision and time when the build
// recorded them.
type BuildInfo struct {
	Version   string `json:"version"`
	Revision  string `json:"revision,omitempty"`
	Time      string `json:"time,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"go_version"`
}

// The commit the Makefile's build stamps with -ldflags -X, for builds the Go toolchain stamps
// no VCS information into (GOFLAGS=-buildvcs=false, a linked git worktree). Set at link time
// only; never changed at run time.
var (
	vcsRevision string
	vcsTime     string
	vcsModified string // "true" when the tree had changes not committed
)

// ReadBuildInfo reads the build information the Go toolchain embedded in the binary, and the
// commit the Makefile stamped when the toolchain recorded none.
func ReadBuildInfo() BuildInfo {
	b := BuildInfo{Version: "devel", GoVersion: runtime.Version(), Revision: vcsRevision, Time: vcsTime,
		Modified: vcsModified == "true"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		b.Version = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// String is the one-line form `version` and `--version` print after "agent-deck version".
func (b BuildInfo) String() string {
	s := b.Version
	if b.Revision != "" {
		rev := b.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		s += " (" + rev
		if b.Time != "" {
			s += " " + b.Time
		}
		if b.Modified {
			s += " modified"
		}
		s += ")"
	}
	return s + " " + b.GoVersion
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name: "version", Usage: "print the version of this binary and the Go toolchain that built it",
		Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			b := ReadBuildInfo()
			if c.Bool("json") {
				return printJSON(c.App.Writer, b)
			}
			_, err := fmt.Fprintf(c.App.Writer, "%s version %s\n", c.App.Name, b)
			return err
		},
	}
}
