package cli

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// manDescription opens the manual page: what the program is and the conventions every command
// shares, which --help shows nowhere in one place.
const manDescription = "Agent Deck gives AI coding agents one MCP endpoint (/mcp) in front of many MCP servers, " +
	"with their keys and playbooks grouped in decks. `agent-deck serve` runs the server; every other " +
	"command is a client of a running server's REST API (/api/v1), found through --home, --server and " +
	"--token. Commands that print a table take --json for scripts. Exit codes: 0 success; 1 a mistake " +
	"on the command line or a request the server refused (bad input, not found, conflict, not allowed); " +
	"2 an internal error or no server to talk to. Shell completion: `agent-deck completion bash|zsh|fish`."

func manCommand() *cli.Command {
	return &cli.Command{
		Name: "man", Usage: "print the manual page (roff), generated from the command tree: agent-deck man > agent-deck.1",
		Action: func(c *cli.Context) error {
			if args, err := positional(c); err != nil || len(args) > 0 {
				return userError("%s: takes no arguments", commandName(c))
			}
			page, err := manPage(c.App)
			if err != nil {
				return fmt.Errorf("writing the manual page: %w", err)
			}
			_, err = fmt.Fprint(c.App.Writer, page)
			return err
		},
	}
}

// manPage renders the manual page (section 1) from a fresh command tree: the global flags once,
// not repeated under every command as the running tree carries them, and an ENVIRONMENT section
// from the flags' variables.
func manPage(app *cli.App) (string, error) {
	doc := &cli.App{Name: app.Name, Usage: app.Usage, Description: manDescription, Flags: globalFlags(),
		Commands: commands(), HideHelpCommand: true}
	env := manEnvironment(doc.Flags, doc.Commands)
	manTexts(app.Name, doc.Flags, doc.Commands)
	page, err := doc.ToManWithSection(1)
	if err != nil {
		return "", err
	}
	return page + env, nil
}

// markdownEscaper escapes what the page's markdown would otherwise read as markup: "<home>" is an
// HTML tag to it, and would vanish.
var markdownEscaper = strings.NewReplacer(`\`, `\\`, "<", `\<`, ">", `\>`)

// manTexts prepares the tree's texts for the page: a usage line with the arguments of each
// command that takes some (the page shows no ArgsUsage), markdown escaped, and a default under
// this machine's home directory shown as ~ (the page is the same on every machine). path is the
// command path above cmds.
func manTexts(path string, flags []cli.Flag, cmds []*cli.Command) {
	home, _ := os.UserHomeDir()
	for _, f := range flags {
		v := reflect.ValueOf(f)
		if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
			continue
		}
		s := v.Elem()
		if val, def := s.FieldByName("Value"), s.FieldByName("DefaultText"); home != "" && val.Kind() == reflect.String &&
			def.Kind() == reflect.String && def.String() == "" && strings.HasPrefix(val.String(), home+string(os.PathSeparator)) {
			def.SetString("~" + strings.TrimPrefix(val.String(), home))
		}
		for _, name := range []string{"Usage", "DefaultText"} {
			if fv := s.FieldByName(name); fv.Kind() == reflect.String && fv.CanSet() {
				fv.SetString(markdownEscaper.Replace(fv.String()))
			}
		}
	}
	for _, c := range cmds {
		if c.UsageText == "" && c.ArgsUsage != "" {
			c.UsageText = path + " " + c.Name + " [options] " + c.ArgsUsage
		}
		c.Usage, c.ArgsUsage = markdownEscaper.Replace(c.Usage), markdownEscaper.Replace(c.ArgsUsage)
		c.Description, c.UsageText = markdownEscaper.Replace(c.Description), markdownEscaper.Replace(c.UsageText)
		manTexts(path+" "+c.Name, c.Flags, c.Subcommands)
	}
}

// manEnvironment is the ENVIRONMENT section in roff: each variable a flag reads, with the flag.
func manEnvironment(flags []cli.Flag, cmds []*cli.Command) string {
	seen := map[string]string{}
	var walk func(flags []cli.Flag, cmds []*cli.Command)
	walk = func(flags []cli.Flag, cmds []*cli.Command) {
		for _, f := range flags {
			ev, ok := f.(interface{ GetEnvVars() []string })
			if !ok {
				continue
			}
			usage := ""
			if u, ok := f.(interface{ GetUsage() string }); ok {
				usage = u.GetUsage()
			}
			for _, e := range ev.GetEnvVars() {
				if _, dup := seen[e]; !dup {
					seen[e] = "--" + f.Names()[0] + ": " + usage
				}
			}
		}
		for _, c := range cmds {
			walk(c.Flags, c.Subcommands)
		}
	}
	walk(flags, cmds)
	for e, what := range manOtherEnvironment {
		seen[e] = what
	}
	names := make([]string, 0, len(seen))
	for e := range seen {
		names = append(names, e)
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString("\n.SH ENVIRONMENT\n")
	for _, e := range names {
		fmt.Fprintf(&b, ".TP\n\\fB%s\\fR\n%s\n", roffEscape(e), roffEscape(seen[e]))
	}
	return b.String()
}

// manOtherEnvironment are the variables serve reads that no flag stands for.
var manOtherEnvironment = map[string]string{
	"OTEL_EXPORTER_OTLP_ENDPOINT": "serve: export OpenTelemetry traces over OTLP/HTTP to this endpoint (the other OTEL_EXPORTER_OTLP_* variables apply too); empty traces nothing",
	"OTEL_SERVICE_NAME":           "serve: the service.name traces are sent under (default agent-deck), to tell replicas apart",
	"OTEL_RESOURCE_ATTRIBUTES":    "serve: more resource attributes of the traces, key=value,key=value (service.instance.id=replica-2)",
}

// roffEscape makes text safe as one roff text line: backslashes escaped, and a leading . or '
// (a request to roff) neutralised.
func roffEscape(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
