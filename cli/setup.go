package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli/client"
	"github.com/agent-deck/agent-deck/harness"
	"github.com/agent-deck/agent-deck/mcptools"
)

func setupCommand() *cli.Command {
	return &cli.Command{
		Name:  "setup",
		Usage: "write Agent Deck into an agent client: MCP entry, harness text, status line (run again = no change)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "client", Required: true, Usage: strings.Join(harness.Clients(), ", ")},
			&cli.StringFlag{Name: "scope", Value: string(harness.ScopeUser), Usage: "user (every project) or project (this folder)"},
			&cli.BoolFlag{Name: "remove", Usage: "take Agent Deck's entry, text and status line out again"},
			&cli.StringFlag{Name: "profile", Usage: "MCP tool profile the client uses: " + backend.ProfileChoices() + " (default: the server's)"},
			&cli.StringFlag{Name: "project-dir", Value: ".", Usage: "project root for --scope project"},
			&cli.StringFlag{Name: "token-env", Value: harness.DefaultTokenEnv, Usage: "environment variable project files read the token from"},
			jsonFlag,
		},
		Action: setupAction,
	}
}

// setupPaths anchors the harness table in this machine's directories.
func setupPaths(projectDir string) (harness.Paths, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return harness.Paths{}, userError("cannot find the home directory: %v", err)
	}
	cfg, err := os.UserConfigDir()
	if err != nil {
		cfg = filepath.Join(home, ".config")
	}
	proj, err := filepath.Abs(projectDir)
	if err != nil {
		return harness.Paths{}, userError("--project-dir: %v", err)
	}
	return harness.Paths{Home: home, ConfigDir: cfg, Project: proj}, nil
}

// agentDeckCommand is how clients should start this binary: its absolute path when it is the
// installed agent-deck, the bare name otherwise.
func agentDeckCommand() string {
	if exe, err := os.Executable(); err == nil && filepath.Base(exe) == "agent-deck" {
		return exe
	}
	return "agent-deck"
}

func setupAction(c *cli.Context) error {
	t, err := harness.Lookup(c.String("client"), harness.Scope(c.String("scope")))
	if err != nil {
		return userError("%v", err)
	}
	profile := c.String("profile")
	tools, err := harnessTools(profile)
	if err != nil {
		return userError("--profile: %v", err)
	}
	paths, err := setupPaths(c.String("project-dir"))
	if err != nil {
		return err
	}
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	e := harness.Entry{URL: cl.BaseURL + "/mcp", TokenEnv: c.String("token-env"), Profile: profile,
		Command: agentDeckCommand()}
	if t.Scope == harness.ScopeUser {
		e.Home = statusLineHome(c) // a project's settings are shared: each person's default home
	}
	var tightened *modeChange
	if !c.Bool("remove") && t.Scope == harness.ScopeUser {
		if e.Token, err = setupToken(c, cl, t, paths); err != nil {
			return err
		}
		if tightened, err = tightenTokenFile(paths.Resolve(t.Config)); err != nil {
			return err
		}
	}
	files, err := applyChanges(c, t.Changes(paths, e, tools, c.Bool("remove")))
	if err != nil {
		return err
	}
	revoked := ""
	if c.Bool("remove") {
		if revoked, err = revokeSetupToken(c, cl, t, paths.Resolve(t.Config)); err != nil {
			return err
		}
	}
	if c.Bool("json") {
		out := map[string]any{"client": t.Client, "scope": t.Scope, "removed": c.Bool("remove"), "files": files}
		if revoked != "" {
			out["revoked_token"] = revoked
		}
		if tightened != nil {
			out["tightened"] = tightened
		}
		return printJSON(c.App.Writer, out)
	}
	if tightened != nil {
		fmt.Fprintf(c.App.ErrWriter, "warning: %s was readable by other users (%s) and now holds a live Agent Deck token: "+
			"made it %s. %s reads it as you, so nothing else changes; if the client writes it back wider, run setup again.\n",
			tightened.Path, tightened.From, tightened.To, t.Client)
	}
	if revoked != "" {
		fmt.Fprintf(c.App.Writer, "%-9s token %s (created by setup)\n", "revoked", revoked)
	}
	if t.Scope == harness.ScopeProject && !c.Bool("remove") {
		fmt.Fprintf(c.App.ErrWriter, "The project config reads the token from $%s; create one with "+
			"`agent-deck token create %s-%s` and export it.\n", e.TokenEnv, t.Client, t.Scope)
	}
	return nil
}

// modeChange is a file whose permissions setup narrowed.
type modeChange struct {
	Path string `json:"path"`
	From string `json:"from"`
	To   string `json:"to"`
}

// tightenTokenFile makes a user-scope client config, about to hold a live token, readable and
// writable by its owner only, before the token is written. Every client in the harness table
// reads its user config as the user who runs it, so each works with 0600; clients create these
// files 0644 (Claude Code's ~/.claude.json among them). A file that does not exist yet is
// created 0600 by the change itself. nil when nothing changed (or on Windows, where modes do not
// say who may read).
func tightenTokenFile(path string) (*modeChange, error) {
	if runtime.GOOS == "windows" {
		return nil, nil
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, userError("reading %s: %v", path, err)
	}
	perm := st.Mode().Perm()
	if perm&0o077 == 0 {
		return nil, nil
	}
	next := perm &^ 0o077
	if err := os.Chmod(path, next); err != nil {
		return nil, userError("%s holds a live token but is readable by other users (%#o), and making it %#o failed: %v",
			path, perm, next, err)
	}
	return &modeChange{Path: path, From: fmt.Sprintf("%#o", perm), To: fmt.Sprintf("%#o", next)}, nil
}

// harnessTools are the tools the harness text may name for a client on profile: the MCP
// registry's canonical tools of that profile, the default profile's when none is given.
func harnessTools(profile string) ([]string, error) {
	if profile == "" {
		profile = backend.DefaultProfile
	}
	if !backend.IsProfile(profile) {
		return nil, fmt.Errorf("unknown profile %q: expected %s", profile, strings.Join(backend.Profiles, ", "))
	}
	return mcptools.CanonicalToolNames(mcptools.Profile(profile)), nil
}

// setupToken reuses the token already in the client's config (so setup twice changes nothing),
// or creates an agent token on the server.
func setupToken(c *cli.Context, cl *client.Client, t harness.Target, paths harness.Paths) (string, error) {
	if old, err := os.ReadFile(paths.Resolve(t.Config)); err == nil {
		if tok := t.ExistingToken(old); tok != "" {
			return tok, nil
		}
	}
	nt, err := cl.CreateToken(c.Context, core.TokenInput{Name: setupTokenName(t), Scope: backend.ScopeAgent})
	if err != nil {
		return "", fail(err)
	}
	return nt.Secret, rememberSetupToken(c, cl, t, paths.Resolve(t.Config), nt.ID)
}

// statusLineHome is the home the status line must name: "" for the default one, else the
// absolute path of --home (or AGENT_DECK_HOME), which the client's shell may not have set.
func statusLineHome(c *cli.Context) string {
	home := global(c, flagHome)
	if abs, err := filepath.Abs(home); err == nil {
		home = abs
	}
	if def, err := filepath.Abs(defaultHome()); err == nil && def == home {
		return ""
	}
	return home
}

// fileChange is what setup and use did to one file, for --json.
type fileChange struct {
	Path    string          `json:"path"`
	What    string          `json:"what"`
	Outcome harness.Outcome `json:"outcome"`
}

// applyChanges applies the changes in order, printing one line per file unless --json asks
// the caller to print the returned list instead.
func applyChanges(c *cli.Context, changes []harness.Change) ([]fileChange, error) {
	home, _ := os.UserHomeDir()
	files := []fileChange{}
	for _, ch := range changes {
		out, err := harness.Apply(ch)
		if err != nil {
			return nil, userError("%v", err)
		}
		files = append(files, fileChange{Path: ch.Path, What: ch.What, Outcome: out})
		if c.Bool("json") {
			continue
		}
		shown := ch.Path
		if home != "" && strings.HasPrefix(shown, home+string(filepath.Separator)) {
			shown = "~" + shown[len(home):]
		}
		fmt.Fprintf(c.App.Writer, "%-9s %s (%s)\n", out, shown, ch.What)
	}
	return files, nil
}
