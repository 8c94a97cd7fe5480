package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/cli/client"
)

// cardKind is one row of the table that drives `service`, `playbook`, `deck` and `credential`
// list|show|delete: how to fetch, print and delete that kind.
type cardKind struct {
	name   string // command name
	noun   string // in messages
	header []string
	list   func(context.Context, *client.Client) (any, [][]string, error)
	// extraColumn, when set, names a column list adds to every row only when it has something
	// to show (rows one cell longer than header).
	extraColumn string
	show        func(context.Context, *client.Client, string) (any, func(io.Writer) error, error)
	// delete deletes the card and returns lines saying what else the deletion changed.
	delete  func(context.Context, *client.Client, string) ([]string, error)
	extra   []*cli.Command
	aliases []string
}

func (k cardKind) command() *cli.Command {
	cmds := []*cli.Command{
		{Name: "list", Aliases: []string{"ls"}, Usage: "list " + k.noun + "s", Flags: []cli.Flag{jsonFlag},
			Action: k.listAction},
		{Name: "show", Usage: "show one " + k.noun, ArgsUsage: "ID-OR-NAME", Flags: []cli.Flag{jsonFlag},
			Action: k.showAction},
		{Name: "delete", Aliases: []string{"rm"}, Usage: "delete a " + k.noun, ArgsUsage: "ID-OR-NAME",
			Flags:  []cli.Flag{yesFlag},
			Action: k.deleteAction},
	}
	return &cli.Command{Name: k.name, Aliases: k.aliases, Usage: "manage " + k.noun + "s",
		Subcommands: append(k.extra, cmds...)}
}

func (k cardKind) listAction(c *cli.Context) error {
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	v, rows, err := k.list(c.Context, cl)
	if err != nil {
		return fail(err)
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, v)
	}
	header := k.header
	if k.extraColumn != "" && len(rows) > 0 && len(rows[0]) > len(header) {
		header = append(slices.Clip(header), k.extraColumn)
	}
	return printTable(c.App.Writer, header, rows)
}

func oneArg(c *cli.Context, what string) (string, error) {
	args, err := positional(c)
	if err != nil {
		return "", err
	}
	if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
		return "", userError("%s: expected exactly one %s", commandName(c), what)
	}
	return args[0], nil
}

// refAndClient reads the one argument a command names (what says what it is) and connects to
// the server: the opening of every command that acts on one card.
func refAndClient(c *cli.Context, what string) (string, *client.Client, error) {
	ref, err := oneArg(c, what)
	if err != nil {
		return "", nil, err
	}
	cl, err := apiClient(c)
	return ref, cl, err
}

// positional returns the arguments that are not flags, applying flags that follow them
// (`deck show dev --json`), which the flag parser leaves unparsed after the first argument.
func positional(c *cli.Context) ([]string, error) {
	args := c.Args().Slice()
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i+1:]...), nil
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			out = append(out, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := findFlag(c.Command.Flags, name)
		if f == nil {
			return nil, userError("%s: unknown flag %s", commandName(c), a)
		}
		if _, isBool := f.(*cli.BoolFlag); isBool && !hasVal {
			val = "true"
		} else if !hasVal {
			if i+1 >= len(args) {
				return nil, userError("%s: flag %s needs a value", commandName(c), a)
			}
			i++
			val = args[i]
		}
		if err := c.Set(f.Names()[0], val); err != nil {
			return nil, usageError(c, fmt.Errorf("invalid value %q for flag --%s: %w", val, f.Names()[0], err), false)
		}
	}
	return out, nil
}

func findFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

func (k cardKind) showAction(c *cli.Context) error {
	ref, cl, err := refAndClient(c, k.noun+" id or name")
	if err != nil {
		return err
	}
	v, human, err := k.show(c.Context, cl, ref)
	if err != nil {
		return fail(err)
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, v)
	}
	return human(c.App.Writer)
}

func (k cardKind) deleteAction(c *cli.Context) error {
	ref, err := oneArg(c, k.noun+" id or name")
	if err != nil {
		return err
	}
	if err := confirm(c, fmt.Sprintf("Delete %s %q?", k.noun, ref)); err != nil {
		return err
	}
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	notes, err := k.delete(c.Context, cl, ref)
	if err != nil {
		printDependents(c.App.ErrWriter, err)
		return fail(err)
	}
	fmt.Fprintf(c.App.Writer, "Deleted %s %s\n", k.noun, ref)
	for _, n := range notes {
		fmt.Fprintln(c.App.Writer, n)
	}
	return nil
}

// printDependents lists the playbooks that blocked a delete (PLAYBOOK_DEPENDENCY).
func printDependents(w io.Writer, err error) {
	var be *backend.Error
	if !errors.As(err, &be) || be.Code != backend.CodePlaybookDependency {
		return
	}
	list, _ := be.Details["playbooks"].([]any)
	if len(list) == 0 {
		return
	}
	fmt.Fprintln(w, "Playbooks that depend on it:")
	for _, item := range list {
		m, _ := item.(map[string]any)
		fmt.Fprintf(w, "  %v  %v\n", m["id"], m["title"])
	}
}

// keyValues prints "key: value" lines, aligned.
func keyValues(w io.Writer, pairs [][2]string) error {
	width := 0
	for _, p := range pairs {
		width = max(width, len(p[0]))
	}
	for _, p := range pairs {
		if _, err := fmt.Fprintf(w, "%-*s  %s\n", width+1, p[0]+":", p[1]); err != nil {
			return err
		}
	}
	return nil
}

func joinOrDash(list []string) string {
	if len(list) == 0 {
		return "-"
	}
	return strings.Join(list, ", ")
}

func serviceCommand() *cli.Command {
	return cardKind{
		name: "service", noun: "service", aliases: []string{"services"},
		header: []string{"ID", "NAME", "TYPE", "TARGET", "HEALTH"},
		list: func(ctx context.Context, cl *client.Client) (any, [][]string, error) {
			list, err := cl.ListServices(ctx)
			rows := make([][]string, len(list))
			for i, s := range list {
				rows[i] = []string{s.ID, s.Name, string(s.Type), clipCell(serviceTarget(s), maxTargetWidth), string(s.Health.Status)}
			}
			if err == nil {
				rows = withSignInColumn(ctx, cl, list, rows)
			}
			return orEmptyList(list), rows, err
		},
		extraColumn: "SIGN-IN",
		show: func(ctx context.Context, cl *client.Client, ref string) (any, func(io.Writer) error, error) {
			s, err := cl.GetService(ctx, ref)
			pairs := servicePairs(s)
			if err == nil {
				pairs = append(pairs, signInPairs(ctx, cl, s)...)
			}
			return s, func(w io.Writer) error { return keyValues(w, pairs) }, err
		},
		delete: func(ctx context.Context, cl *client.Client, ref string) ([]string, error) {
			return nil, cl.DeleteService(ctx, ref)
		},
		extra: []*cli.Command{serviceAddCommand(), serviceEditCommand(), serviceToolsCommand(),
			serviceToggleCommand(true), serviceToggleCommand(false), serviceCheckCommand(), serviceApproveCommand(), serviceOverrideCommand(),
			serviceConnectCommand(), serviceDisconnectCommand(), serviceLimitsCommand()},
	}.command()
}

// maxTargetWidth keeps a long command line or URL from stretching `service list`; the JSON and
// `service show` keep the whole value.
const maxTargetWidth = 48

// clipCell shortens s to n characters, the last one an ellipsis.
func clipCell(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// serviceNames maps service ids to names, so people read names; an id the list does not hold
// (or a list that failed) stays an id.
func serviceNames(ctx context.Context, cl *client.Client, ids []string) []string {
	if len(ids) == 0 {
		return nil
	}
	byID := map[string]string{}
	if list, err := cl.ListServices(ctx); err == nil {
		for _, s := range list {
			byID[s.ID] = s.Name
		}
	}
	names := make([]string, len(ids))
	for i, id := range ids {
		if names[i] = byID[id]; names[i] == "" {
			names[i] = id
		}
	}
	return names
}

func serviceTarget(s backend.ServiceCard) string {
	if s.Type == backend.ServiceLocal {
		return strings.TrimSpace(s.LocalCommand + " " + strings.Join(s.LocalArgs, " "))
	}
	return s.URL
}

func servicePairs(s backend.ServiceCard) [][2]string {
	pairs := [][2]string{{"id", s.ID}, {"name", s.Name}, {"type", string(s.Type)}}
	if s.Type == backend.ServiceLocal {
		pairs = append(pairs, [2]string{"command", serviceTarget(s)}, [2]string{"working dir", orDash(s.LocalWorkingDir)},
			[2]string{"env", joinOrDash(sortedKeys(s.LocalEnv))})
	} else {
		pairs = append(pairs, [2]string{"url", s.URL}, [2]string{"transport", string(s.Transport)},
			[2]string{"headers", joinOrDash(sortedKeys(s.Headers))})
	}
	return append(pairs, [2]string{"description", orDash(s.Description)}, [2]string{"credential", orDash(s.CredentialID)},
		[2]string{"disabled tools", joinOrDash(s.DisabledTools)}, [2]string{"timeout", strconv.Itoa(s.TimeoutSeconds) + "s"},
		[2]string{"pin tools", strconv.FormatBool(s.PinTools)}, [2]string{"health", string(s.Health.Status)})
}

func playbookCommand() *cli.Command {
	return cardKind{
		name: "playbook", noun: "playbook", aliases: []string{"playbooks"},
		header: []string{"ID", "TITLE", "TRIGGERS", "DEPENDS ON"},
		list: func(ctx context.Context, cl *client.Client) (any, [][]string, error) {
			list, err := cl.ListPlaybooks(ctx)
			var serviceIDs []string
			for _, p := range list {
				serviceIDs = append(serviceIDs, p.DependsOnServiceIDs...)
			}
			names := serviceNames(ctx, cl, serviceIDs)
			rows := make([][]string, len(list))
			for i, p := range list {
				deps := append(append([]string{}, p.DependsOnCredentialIDs...), names[:len(p.DependsOnServiceIDs)]...)
				names = names[len(p.DependsOnServiceIDs):]
				rows[i] = []string{p.ID, p.Title, strconv.Itoa(len(p.Triggers)), joinOrDash(deps)}
			}
			return orEmptyList(list), rows, err
		},
		show: func(ctx context.Context, cl *client.Client, ref string) (any, func(io.Writer) error, error) {
			p, err := cl.GetPlaybook(ctx, ref)
			return p, func(w io.Writer) error {
				if err := keyValues(w, [][2]string{{"id", p.ID}, {"title", p.Title},
					{"triggers", joinOrDash(p.Triggers)}, {"exec", orDash(p.Exec)}, {"skill", orDash(p.Skill)},
					{"credentials", joinOrDash(p.DependsOnCredentialIDs)},
					{"services", joinOrDash(serviceNames(ctx, cl, p.DependsOnServiceIDs))}}); err != nil {
					return err
				}
				_, err := fmt.Fprintf(w, "\n%s\n", strings.TrimRight(p.Body, "\n"))
				return err
			}, err
		},
		delete: func(ctx context.Context, cl *client.Client, ref string) ([]string, error) {
			return nil, cl.DeletePlaybook(ctx, ref)
		},
		extra: []*cli.Command{playbookAddCommand(), playbookEditCommand()},
	}.command()
}

func orEmptyList[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
