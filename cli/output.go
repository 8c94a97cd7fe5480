package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/cli/client"
)

// Exit codes of every command.
const (
	exitOK       = 0
	exitUser     = 1
	exitInternal = 2
)

// ExitCode maps an error to the process exit code: 0 ok, 1 user error (bad input, unknown card,
// conflict, refused: any 4xx), 2 internal or unreachable. It is the one place that mapping lives.
func ExitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var unreachable *client.UnreachableError
	if errors.As(err, &unreachable) {
		return exitInternal
	}
	var coder cli.ExitCoder
	if errors.As(err, &coder) {
		return coder.ExitCode()
	}
	p, ok := publicForm(err)
	if !ok {
		return exitUser
	}
	if p.Status < 500 {
		return exitUser
	}
	return exitInternal
}

// publicForm is what the CLI shows of a classified error. An answer of the server is already in
// its public form (the server's backend.Public chose it) and keeps its text even when its code
// is newer than this CLI; the HTTP status then says whose fault it is. A failure of the CLI
// itself goes through backend.Public.
func publicForm(err error) (backend.PublicError, bool) {
	var be *backend.Error
	if !errors.As(err, &be) {
		return backend.PublicError{}, false
	}
	var se *client.StatusError
	if errors.As(err, &se) {
		return backend.PublicError{Code: be.Code, Message: be.Message, Hint: be.Hint,
			Details: be.Details, Status: se.Status}, true
	}
	return backend.Public(be, ""), true
}

// fail turns an error into the cli.ExitCoder the app reports: one message, the mapped code.
func fail(err error) error {
	if err == nil {
		return nil
	}
	var coder cli.ExitCoder
	if errors.As(err, &coder) {
		return err
	}
	msg := err.Error()
	var unreachable *client.UnreachableError
	if p, ok := publicForm(err); ok && !errors.As(err, &unreachable) {
		msg = p.Message
		if _, known := backend.HTTPStatus(p.Code); !known {
			msg = string(p.Code) + ": " + msg
		}
		if p.Hint != "" {
			msg += "\n  hint: " + p.Hint
		}
	}
	return cli.Exit(msg, ExitCode(err))
}

// commandName is the command being run as people type it, without the program's name: "deck
// create", not "create" (urfave/cli's FullName is the last word only) nor "agent-deck deck create".
func commandName(c *cli.Context) string {
	if c.Command == nil || c.Command.HelpName == "" {
		return c.App.Name
	}
	return strings.TrimPrefix(c.Command.HelpName, c.App.Name+" ")
}

// userError is a mistake on the command line (exit 1).
func userError(format string, args ...any) error {
	return cli.Exit(fmt.Sprintf(format, args...), exitUser)
}

// global reads a global flag (--home, --server, --token) wherever on the command line it was
// given: before the command or after it. Every command also declares the global flags, so the
// innermost context alone would report its unset default.
func global(c *cli.Context, name string) string {
	for _, x := range c.Lineage() {
		if x.IsSet(name) {
			return x.String(name)
		}
	}
	return c.String(name)
}

// clientOptions are the connection settings of the global flags.
func clientOptions(c *cli.Context) client.Options {
	return client.Options{Home: global(c, flagHome), Server: global(c, flagServer), Token: global(c, flagToken)}
}

// apiClient builds the REST client from the global --home, --server and --token flags.
func apiClient(c *cli.Context) (*client.Client, error) {
	cl, err := client.New(clientOptions(c))
	if err != nil {
		return nil, fail(err)
	}
	return cl, nil
}

var jsonFlag = &cli.BoolFlag{Name: "json", Usage: "print JSON for scripts instead of a table"}

// printJSON writes v indented, with a trailing newline.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// printTable writes an aligned table without borders; trailing spaces are trimmed so output is
// stable for scripts and golden files.
func printTable(w io.Writer, header []string, rows [][]string) error {
	var buf bytes.Buffer
	table := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{Separators: tw.Separators{BetweenColumns: tw.Off, BetweenRows: tw.Off},
				Lines: tw.Lines{ShowHeaderLine: tw.Off}},
		})),
		tablewriter.WithConfig(tablewriter.Config{
			Header: tw.CellConfig{Alignment: tw.CellAlignment{Global: tw.AlignLeft},
				Formatting: tw.CellFormatting{AutoFormat: tw.Off}},
			Row: tw.CellConfig{Alignment: tw.CellAlignment{Global: tw.AlignLeft},
				Formatting: tw.CellFormatting{AutoWrap: tw.WrapNone}},
		}),
		tablewriter.WithPadding(tw.Padding{Left: "", Right: "  ", Overwrite: true}),
		tablewriter.WithTrimSpace(tw.Off),
	)
	table.Header(header)
	if err := table.Bulk(rows); err != nil {
		return err
	}
	if err := table.Render(); err != nil {
		return err
	}
	var out strings.Builder
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if line == "" {
			continue
		}
		out.WriteString(strings.TrimRight(line, " \n") + "\n")
	}
	_, err := io.WriteString(w, out.String())
	return err
}

// isTerminal reports whether r is an interactive terminal.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// yesFlag skips confirm's question, for scripts.
var yesFlag = &cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask for confirmation"}

// The rule for commands that decide something that cannot be taken back (a delete, a revoke, a
// review's accept, reject, discard or approve, forgetting a sign-in): each asks on a terminal
// and needs --yes (-y) anywhere else, and no other command takes --yes. decidingCommands names
// them as people type them; TestEveryDecidingCommandTakesYes holds the tree to it.
var decidingCommands = []string{
	"deck delete", "service delete", "credential delete", "playbook delete",
	"token revoke", "proposal accept", "proposal reject", "signal discard",
	"service approve", "service disconnect", "person remove",
}

// confirm asks on a terminal; elsewhere it needs --yes, so scripts never hang or delete by
// accident.
func confirm(c *cli.Context, question string) error {
	if c.Bool("yes") {
		return nil
	}
	if !isTerminal(c.App.Reader) {
		return userError("%s: refusing without confirmation; pass --yes", question)
	}
	fmt.Fprintf(c.App.ErrWriter, "%s [y/N] ", question)
	line, _ := bufio.NewReader(c.App.Reader).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return userError("cancelled")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// printList prints the list fetch returns: with --json as JSON (no items as []), else as a table
// of header with one row per item.
func printList[T any](c *cli.Context, fetch func(*client.Client) ([]T, error), header []string, row func(T) []string) error {
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	list, err := fetch(cl)
	if err != nil {
		return fail(err)
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, orEmptyList(list))
	}
	rows := make([][]string, len(list))
	for i, v := range list {
		rows[i] = row(v)
	}
	return printTable(c.App.Writer, header, rows)
}
