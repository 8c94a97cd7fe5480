package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli/client"
	"github.com/agent-deck/agent-deck/harness"
)

const adoptDescription = `Reads the MCP servers configured in a client (the file ` + "`setup`" + ` writes) and registers
each one as a service card. Header values under secret-looking names and every env value are
encrypted by the server and never printed; a secret-looking value under another header name
becomes a credential card. Environment references (${VAR}, ${env:VAR}, Codex's
bearer_token_env_var) are resolved from this shell's environment now, the way the client would
resolve them when it starts the server; a server whose variable is not set is skipped.

Agent Deck's own entry, disabled servers and names already registered are skipped. With
--replace the adopted servers are taken out of the client's file (a backup is written first), so
the client reaches them through Agent Deck alone. Running it again changes nothing.`

func adoptCommand() *cli.Command {
	return &cli.Command{
		Name:        "adopt",
		Usage:       "register the MCP servers a client already has as services (optionally take them out of its file)",
		Description: adoptDescription,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "from", Required: true, Usage: strings.Join(harness.Clients(), ", ")},
			&cli.StringFlag{Name: "scope", Value: string(harness.ScopeUser), Usage: "user (every project), project (this folder's shared file) or, for claude-code, local (this folder's private servers in ~/.claude.json)"},
			&cli.StringFlag{Name: "project-dir", Value: ".", Usage: "project root for --scope project"},
			&cli.BoolFlag{Name: "dry-run", Usage: "report what would be adopted; change nothing"},
			&cli.StringFlag{Name: "deck", Usage: "also link the adopted services to this deck"},
			&cli.BoolFlag{Name: "replace", Usage: "take the adopted servers out of the client's file (backed up first)"},
			jsonFlag,
		},
		Action: adoptAction,
	}
}

// Outcomes of one server in the adopt report.
const (
	adoptAdopted   = "adopted"
	adoptWould     = "would adopt"
	adoptAlready   = "already adopted"
	adoptSkipped   = "skipped"
	backupSuffix   = ".agent-deck.bak"
	adoptCredLabel = "%s %s"
)

// adoptItem is one server of the report. It never holds a value, only names.
type adoptItem struct {
	Name       string   `json:"name"`
	Outcome    string   `json:"outcome"`
	Type       string   `json:"type,omitempty"`
	Reason     string   `json:"reason,omitempty"`
	Sealed     []string `json:"sealed,omitempty"`
	Credential string   `json:"credential,omitempty"`
	Ignored    []string `json:"ignored_keys,omitempty"`
	ServiceID  string   `json:"service_id,omitempty"`
	Linked     bool     `json:"linked,omitempty"`
	// TakenOut is the backup of the client's file an earlier adopt --replace wrote when it
	// took this server out (adoptedEarlier).
	TakenOut string `json:"taken_out_earlier,omitempty"`
}

type adoptReport struct {
	Client   string          `json:"client"`
	Scope    harness.Scope   `json:"scope"`
	File     string          `json:"file"`
	DryRun   bool            `json:"dry_run"`
	Services []adoptItem     `json:"services"`
	Removed  []string        `json:"removed_from_client,omitempty"`
	Backup   string          `json:"backup,omitempty"`
	Outcome  harness.Outcome `json:"file_outcome,omitempty"`
	// Hint is the next step when the client's file has no Agent Deck entry to reach them by.
	Hint string `json:"hint,omitempty"`
}

// adoption is a server mapped to a service, ready to create.
type adoption struct {
	in   core.ServiceInput
	cred *core.CredentialInput // a secret under a header name the server does not seal
	item adoptItem
}

func adoptAction(c *cli.Context) error {
	if args, err := positional(c); err != nil {
		return err
	} else if len(args) > 0 {
		return userError("adopt takes no arguments: name the client with --from")
	}
	paths, err := setupPaths(c.String("project-dir"))
	if err != nil {
		return err
	}
	t, err := adoptTarget(c.String("from"), c.String("scope"), paths)
	if err != nil {
		return err
	}
	file := paths.Resolve(t.Config)
	src, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return userError("reading %s: %v", file, err)
	}
	servers, err := t.ReadServers(src)
	if err != nil {
		return userError("%s: %v", file, err)
	}
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	existing, err := cl.ListServices(c.Context)
	if err != nil {
		return fail(err)
	}
	deck, onDeck := c.String("deck"), map[string]bool{}
	if deck != "" {
		snap, err := cl.GetDeck(c.Context, deck)
		if err != nil {
			return fail(err)
		}
		for _, s := range snap.Services {
			onDeck[s.ID] = true
		}
	}
	rep := adoptReport{Client: t.Client, Scope: t.Scope, File: file, DryRun: c.Bool("dry-run"), Services: []adoptItem{}}
	var remove []string
	for _, s := range servers {
		a := mapServer(t, s, paths, cl.BaseURL)
		if a.item.Outcome == "" {
			a.item = matchExisting(a, existing)
		}
		if a.item.Outcome == "" {
			if rep.DryRun {
				a.item.Outcome = adoptWould
			} else {
				a.item = createAdopted(c, cl, a, deck)
			}
		} else if a.item.Outcome == adoptAlready && deck != "" && !onDeck[a.item.ServiceID] && !rep.DryRun {
			a.item = linkAdopted(c, cl, a.item, deck) // adopted before without this deck
		}
		if a.item.Outcome == adoptAdopted || a.item.Outcome == adoptAlready {
			remove = append(remove, s.Name)
		}
		rep.Services = append(rep.Services, a.item)
	}
	rep.Services = append(rep.Services, adoptedEarlier(t, file, servers, existing, paths, cl.BaseURL)...)
	if c.Bool("replace") && !rep.DryRun && len(remove) > 0 {
		if err := replaceInClient(t, file, remove, &rep); err != nil {
			return err
		}
	}
	if len(remove) > 0 {
		rep.Hint = setupHint(t, src, cl.BaseURL)
	}
	return printAdopt(c, rep)
}

// scopeLocal is Claude Code's default scope for `claude mcp add`: one project's servers, kept
// private in ~/.claude.json under the project's path.
const scopeLocal harness.Scope = "local"

// adoptTarget is the client file and key path to read: setup's table row, or for Claude Code's
// local scope its user file at projects.<project root>.mcpServers.
func adoptTarget(from, scope string, paths harness.Paths) (harness.Target, error) {
	if harness.Scope(scope) != scopeLocal {
		t, err := harness.Lookup(from, harness.Scope(scope))
		if err != nil {
			return t, userError("--from: %v", err)
		}
		return t, nil
	}
	if from != "claude-code" {
		return harness.Target{}, userError("--scope local is Claude Code's (servers added with `claude mcp add` in a project); %s has user or project", from)
	}
	t, err := harness.Lookup(from, harness.ScopeUser)
	if err != nil {
		return t, userError("--from: %v", err)
	}
	t.Scope, t.KeyPath = scopeLocal, []string{"projects", paths.Project, "mcpServers"}
	return t, nil
}

// setupHint names the setup command when the client's file has no Agent Deck entry through
// which the adopted services can be reached; "" when it has one.
func setupHint(t harness.Target, src []byte, base string) string {
	scope := t.Scope
	if scope == scopeLocal { // Claude Code's local servers sit beside its user-level entry
		user, err := harness.Lookup(t.Client, harness.ScopeUser)
		if err != nil {
			return ""
		}
		t, scope = user, harness.ScopeUser
	}
	servers, _ := t.ReadServers(src)
	if slices.ContainsFunc(servers, func(s harness.ClientServer) bool { return isAgentDeck(s, base) }) {
		return ""
	}
	return fmt.Sprintf("agent-deck setup --client %s --scope %s", t.Client, scope)
}

// matchExisting reports a server whose name is already a service: adopted before when it points
// at the same place, a conflict otherwise. Outcome stays "" for a new name.
func matchExisting(a adoption, existing []backend.ServiceCard) adoptItem {
	item := a.item
	for _, card := range existing {
		if !strings.EqualFold(card.Name, a.in.Name) {
			continue
		}
		same := card.Type == a.in.Type && card.URL == a.in.URL && card.LocalCommand == a.in.LocalCommand &&
			slices.Equal(card.LocalArgs, a.in.LocalArgs)
		item.ServiceID = card.ID
		if same {
			item.Outcome, item.Sealed, item.Credential = adoptAlready, nil, ""
		} else {
			item.Outcome, item.Reason = adoptSkipped, fmt.Sprintf("a different service named %s is already registered; rename one and run again", card.Name)
		}
		return item
	}
	return item
}

// createAdopted registers one service (and its credential card), then links it to the deck.
func createAdopted(c *cli.Context, cl *client.Client, a adoption, deck string) adoptItem {
	item := a.item
	failed := func(what string, err error) adoptItem {
		item.Outcome, item.Reason = adoptSkipped, what+": "+fail(err).Error()
		return item
	}
	if a.cred != nil {
		cred, err := cl.CreateCredential(c.Context, *a.cred)
		if err != nil {
			return failed("creating its credential card", err)
		}
		a.in.CredentialID = cred.ID
	}
	card, err := cl.CreateService(c.Context, a.in)
	if err != nil {
		if a.in.CredentialID != "" {
			_, _ = cl.DeleteCredential(c.Context, a.in.CredentialID) // nothing half-applied
		}
		return failed("the server refused it", err)
	}
	item.Outcome, item.ServiceID = adoptAdopted, card.ID
	if deck != "" {
		item = linkAdopted(c, cl, item, deck)
	}
	return item
}

// linkAdopted links an adopted service to the deck; a failure is noted, the service stays.
func linkAdopted(c *cli.Context, cl *client.Client, item adoptItem, deck string) adoptItem {
	if _, err := cl.LinkCard(c.Context, deck, core.CardRef{CardType: backend.CardService, CardID: item.ServiceID}); err != nil {
		item.Reason = "linking it to deck " + deck + " failed: " + fail(err).Error()
	} else {
		item.Linked = true
	}
	return item
}

// replaceInClient backs the client's file up, then takes the adopted servers out of it.
func replaceInClient(t harness.Target, file string, names []string, rep *adoptReport) error {
	src, err := os.ReadFile(file)
	if err != nil {
		return userError("reading %s: %v", file, err)
	}
	out, err := t.RemoveServers(src, names)
	if err != nil {
		return userError("%s: %v", file, err)
	}
	if string(out) == string(src) {
		return nil
	}
	backup := file + backupSuffix
	for i := 1; ; i++ { // never overwrite an earlier backup: it may hold the original
		if _, err := os.Lstat(backup); errors.Is(err, fs.ErrNotExist) {
			break
		}
		backup = fmt.Sprintf("%s%s.%d", file, backupSuffix, i)
	}
	if err := os.WriteFile(backup, src, 0o600); err != nil {
		return userError("writing the backup %s: %v", backup, err)
	}
	outcome, err := harness.Apply(harness.Change{Path: file, What: "MCP servers", Mode: 0o600,
		Edit: func(cur []byte) ([]byte, error) {
			out, err := t.RemoveServers(cur, names)
			if err == nil && len(bytes.TrimSpace(out)) == 0 {
				out = emptyConfig(t.Format) // the client's own file stays, valid and empty
			}
			return out, err
		}})
	if err != nil {
		return userError("%v (the original is in %s)", err, backup)
	}
	rep.Removed, rep.Backup, rep.Outcome = names, backup, outcome
	return nil
}

// emptyConfig is a client file with nothing in it, in the client's format.
func emptyConfig(f harness.Format) []byte {
	if f == harness.FormatTOML {
		return []byte("\n")
	}
	return []byte("{}\n")
}

func printAdopt(c *cli.Context, rep adoptReport) error {
	if c.Bool("json") {
		return printJSON(c.App.Writer, rep)
	}
	w := c.App.Writer
	home, _ := os.UserHomeDir()
	short := func(p string) string {
		if home != "" && strings.HasPrefix(p, home+string(filepath.Separator)) {
			return "~" + p[len(home):]
		}
		return p
	}
	if len(rep.Services) == 0 {
		fmt.Fprintf(w, "No MCP servers in %s\n", short(rep.File))
		return nil
	}
	for _, it := range rep.Services {
		line := fmt.Sprintf("%-15s %s", it.Outcome, it.Name)
		if it.Type != "" && it.Outcome != adoptSkipped {
			line += " (" + it.Type + ")"
		}
		var notes []string
		if it.Reason != "" {
			notes = append(notes, it.Reason)
		}
		if it.TakenOut != "" {
			notes = append(notes, "taken out of the file by an earlier adopt --replace (the original is in "+short(it.TakenOut)+")")
		}
		if len(it.Sealed) > 0 {
			notes = append(notes, "encrypted: "+strings.Join(it.Sealed, ", "))
		}
		if it.Credential != "" {
			notes = append(notes, fmt.Sprintf("secret header moved to credential card %q", it.Credential))
		}
		if it.Linked {
			notes = append(notes, "linked to deck "+c.String("deck"))
		}
		if len(it.Ignored) > 0 {
			notes = append(notes, "ignored keys: "+strings.Join(it.Ignored, ", "))
		}
		if len(notes) > 0 {
			line += ": " + strings.Join(notes, "; ")
		}
		fmt.Fprintln(w, line)
	}
	switch {
	case len(rep.Removed) > 0:
		fmt.Fprintf(w, "Took %d server(s) out of %s (backup: %s)\n", len(rep.Removed), short(rep.File), short(rep.Backup))
	case rep.DryRun:
		fmt.Fprintln(w, "Dry run: nothing was registered or changed")
	}
	if rep.Hint != "" {
		fmt.Fprintf(w, "%s has no Agent Deck entry yet; to reach these services through it, run: %s\n", rep.Client, rep.Hint)
	}
	return nil
}
