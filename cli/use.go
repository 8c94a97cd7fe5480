package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/harness"
)

// useFile is .agent-deck/use.json: the deck a project is pinned to, by name, since the file is
// meant to be committed and a deck's id differs on every machine. Files written before kept the
// id too; it is still read. This machine remembers the id in <home>/use-pins.json, so
// `use --refresh` follows a rename.
type useFile struct {
	DeckID   string `json:"deck_id,omitempty"`
	DeckName string `json:"deck_name"`
	Server   string `json:"server,omitempty"`
}

const (
	useFilePath = core.WorkspacePinFile
	usePinsFile = "use-pins.json"
)

func useCommand() *cli.Command {
	return &cli.Command{
		Name:      "use",
		Usage:     "pin this project to a deck: project MCP config with the deck header, and .agent-deck/use.json",
		ArgsUsage: "DECK",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "client", Usage: "client config(s) to write (default: the project configs that exist, else claude-code)"},
			&cli.BoolFlag{Name: "refresh", Usage: "re-resolve the pinned deck by name (after a rename or re-import)"},
			&cli.StringFlag{Name: "project-dir", Value: ".", Usage: "project root"},
			&cli.StringFlag{Name: "token-env", Value: harness.DefaultTokenEnv, Usage: "environment variable the config reads the token from"},
			jsonFlag,
		},
		Action: useAction,
	}
}

func useAction(c *cli.Context) error {
	args, err := positional(c)
	if err != nil {
		return err
	}
	paths, err := setupPaths(c.String("project-dir"))
	if err != nil {
		return err
	}
	usePath := filepath.Join(paths.Project, useFilePath)
	ref, fallback := "", ""
	if len(args) > 0 {
		ref = args[0]
	}
	if c.Bool("refresh") && ref == "" {
		prev, err := readUseFile(usePath)
		if err != nil {
			return err
		}
		ref, fallback = prev.DeckName, prev.DeckID
		if fallback == "" {
			fallback = readUsePins(c)[paths.Project]
		}
	}
	if ref == "" || len(args) > 1 {
		return userError("use: name one deck (id or name), or pass --refresh")
	}
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	deck, err := cl.GetDeck(c.Context, ref)
	if backend.ErrorCode(err) == backend.CodeNotFound && fallback != "" {
		deck, err = cl.GetDeck(c.Context, fallback) // renamed since it was pinned
	}
	if err != nil {
		return fail(err)
	}
	targets, err := useTargets(c.StringSlice("client"), paths)
	if err != nil {
		return err
	}
	e := harness.Entry{URL: cl.BaseURL + "/mcp", TokenEnv: c.String("token-env"), DeckID: deckRef(deck.Deck)}
	var changes []harness.Change
	for _, t := range targets {
		changes = append(changes, t.EntryChange(paths, e, false))
	}
	body, _ := json.MarshalIndent(useFile{DeckName: deck.Name, Server: cl.BaseURL}, "", "  ")
	changes = append(changes, harness.Change{Path: usePath, What: "deck pin", Mode: 0o644,
		Edit: func([]byte) ([]byte, error) { return append(body, '\n'), nil }})
	files, err := applyChanges(c, changes)
	if err != nil {
		return err
	}
	if err := writeUsePin(c, paths.Project, deck.ID); err != nil {
		return err
	}
	stubs, err := syncStubs(paths.Project, targetClients(targets), deck.Playbooks)
	if err != nil {
		return err
	}
	_, tokenSet := os.LookupEnv(e.TokenEnv)
	if c.Bool("json") {
		return printJSON(c.App.Writer, map[string]any{"deck_id": deck.ID, "deck_name": deck.Name, "files": files,
			"stubs": stubs, "token_env": e.TokenEnv, "token_env_set": tokenSet})
	}
	printStubReport(c.App.Writer, stubs)
	if _, err := fmt.Fprintf(c.App.Writer, "This project now uses deck %s (%s)\n", deck.Name, deck.ID); err != nil {
		return err
	}
	_, err = fmt.Fprint(c.App.ErrWriter, tokenEnvNote(e.TokenEnv, tokenSet))
	return err
}

// tokenEnvNote explains the variable the project's MCP config reads its token from: the file is
// committed, so it holds a reference, never a token, and the client resolves it when it starts.
// The default variable is also the CLI's own --token, which an agent token there would narrow.
func tokenEnvNote(env string, set bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The project's MCP config sends Authorization: Bearer ${%s}, read from the environment of the client when it starts", env)
	if set {
		b.WriteString(" (it is set in this shell).\n")
	} else {
		fmt.Fprintf(&b, "; it is not set in this shell.\n  Create an agent token with `agent-deck token create NAME --scope agent` and export %s=<its secret> where the client starts.\n", env)
	}
	if env == backend.EnvToken {
		fmt.Fprintf(&b, "  %s is also the token this CLI uses: in a shell that runs admin commands, pick another variable with --token-env.\n", env)
	}
	return b.String()
}

func readUseFile(path string) (useFile, error) {
	var u useFile
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return u, userError("use --refresh: %s does not exist; run `agent-deck use DECK` first", useFilePath)
	}
	if err != nil {
		return u, userError("reading %s: %v", path, err)
	}
	if err := json.Unmarshal(b, &u); err != nil || u.DeckName == "" {
		return u, userError("%s is not a deck pin written by agent-deck use", path)
	}
	return u, nil
}

// useTargets picks the project-scope configs to write: the named clients, else those whose
// project config already exists, else Claude Code's.
func useTargets(names []string, paths harness.Paths) ([]harness.Target, error) {
	var out []harness.Target
	for _, n := range names {
		t, err := harness.Lookup(n, harness.ScopeProject)
		if err != nil {
			return nil, userError("--client: %v", err)
		}
		out = append(out, t)
	}
	if len(out) > 0 {
		return out, nil
	}
	for _, t := range harness.Targets() {
		if t.Scope != harness.ScopeProject {
			continue
		}
		if _, err := os.Stat(paths.Resolve(t.Config)); err == nil {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		t, _ := harness.Lookup("claude-code", harness.ScopeProject)
		out = append(out, t)
	}
	return out, nil
}

// deckRef is how committed files name a deck: by name, which the server resolves and which means
// the same on every machine; by id only when the name could not travel in a header or would
// read as a client's ${...} reference.
func deckRef(d backend.Deck) string {
	for _, r := range d.Name {
		if r < 0x20 || r > 0x7e || r == '$' {
			return d.ID
		}
	}
	return d.Name
}

// readUsePins returns this machine's deck ids by project root; missing or unreadable is empty.
func readUsePins(c *cli.Context) map[string]string {
	out := map[string]string{}
	if b, err := os.ReadFile(filepath.Join(global(c, flagHome), usePinsFile)); err == nil {
		_ = json.Unmarshal(b, &out)
	}
	return out
}

func writeUsePin(c *cli.Context, project, deckID string) error {
	pins := readUsePins(c)
	if pins[project] == deckID {
		return nil
	}
	pins[project] = deckID
	b, _ := json.MarshalIndent(pins, "", "  ")
	if _, err := harness.Apply(harness.Change{Path: filepath.Join(global(c, flagHome), usePinsFile), What: "deck pins",
		Mode: 0o600, Edit: func([]byte) ([]byte, error) { return append(b, '\n'), nil }}); err != nil {
		return userError("%v", err)
	}
	return nil
}

func targetClients(ts []harness.Target) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Client
	}
	return out
}
