package cli

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend/core"
)

// deckToolsCommand is `deck tools DECK SERVICE`: show or set which of a linked service's tools
// the deck exposes.
func deckToolsCommand() *cli.Command {
	return &cli.Command{
		Name: "tools", Usage: "show or narrow the tools a deck exposes of a service it links",
		ArgsUsage: "DECK SERVICE",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "allow", Usage: "comma-separated tools: the only ones the deck exposes"},
			&cli.StringFlag{Name: "deny", Usage: "comma-separated tools the deck hides"},
			&cli.BoolFlag{Name: "clear", Usage: "expose every tool the service has enabled"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			deck, service, err := deckServiceArgs(c)
			if err != nil {
				return err
			}
			in, change, err := deckToolsInput(c)
			if err != nil {
				return err
			}
			return runDeckSettings(c, deck, service, in, change)
		},
	}
}

func deckToolsInput(c *cli.Context) (core.DeckServiceSettingsInput, bool, error) {
	set := 0
	for _, f := range []string{"allow", "deny", "clear"} {
		if c.IsSet(f) {
			set++
		}
	}
	if set > 1 {
		return core.DeckServiceSettingsInput{}, false, userError("%s: use one of --allow, --deny or --clear", commandName(c))
	}
	none := []string{}
	switch {
	case c.IsSet("allow"):
		list := splitList(c.String("allow"))
		if len(list) == 0 {
			return core.DeckServiceSettingsInput{}, false, userError("%s: --allow needs at least one tool name; --clear exposes every tool", commandName(c))
		}
		return core.DeckServiceSettingsInput{AllowTools: &list, DenyTools: &none}, true, nil
	case c.IsSet("deny"):
		list := splitList(c.String("deny"))
		if len(list) == 0 {
			return core.DeckServiceSettingsInput{}, false, userError("%s: --deny needs at least one tool name; --clear exposes every tool", commandName(c))
		}
		return core.DeckServiceSettingsInput{AllowTools: &none, DenyTools: &list}, true, nil
	case c.Bool("clear"):
		return core.DeckServiceSettingsInput{AllowTools: &none, DenyTools: &none}, true, nil
	}
	return core.DeckServiceSettingsInput{}, false, nil
}

// deckCredentialCommand is `deck credential DECK SERVICE [CREDENTIAL]`: show or choose the
// credential a deck presents to a service it links (admin).
func deckCredentialCommand() *cli.Command {
	return &cli.Command{
		Name: "credential", Usage: "show or choose the credential a deck presents to a service it links (admin)",
		ArgsUsage: "DECK SERVICE [CREDENTIAL]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "clear", Usage: "go back to the service's own credential"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			args, err := positional(c)
			if err != nil {
				return err
			}
			if len(args) < 2 || len(args) > 3 || (len(args) == 3 && c.Bool("clear")) {
				return userError("%s: expected DECK SERVICE and a credential id or label, or --clear", commandName(c))
			}
			var in core.DeckServiceSettingsInput
			change := false
			switch {
			case len(args) == 3:
				in.CredentialID, change = &args[2], true
			case c.Bool("clear"):
				empty := ""
				in.CredentialID, change = &empty, true
			}
			return runDeckSettings(c, args[0], args[1], in, change)
		},
	}
}

func deckServiceArgs(c *cli.Context) (string, string, error) {
	args, err := positional(c)
	if err != nil {
		return "", "", err
	}
	if len(args) != 2 || strings.TrimSpace(args[0]) == "" || strings.TrimSpace(args[1]) == "" {
		return "", "", userError("%s: expected DECK SERVICE", commandName(c))
	}
	return args[0], args[1], nil
}

func runDeckSettings(c *cli.Context, deck, service string, in core.DeckServiceSettingsInput, change bool) error {
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	var res core.DeckServiceSettingsResult
	if change {
		res, err = cl.UpdateDeckServiceSettings(c.Context, deck, service, in)
	} else {
		res, err = cl.DeckServiceSettings(c.Context, deck, service)
	}
	if err != nil {
		return fail(err)
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, res)
	}
	return printDeckSettings(c, res)
}

func printDeckSettings(c *cli.Context, res core.DeckServiceSettingsResult) error {
	tools := "every enabled tool"
	switch {
	case len(res.AllowTools) > 0:
		tools = "only " + strings.Join(res.AllowTools, ", ")
	case len(res.DenyTools) > 0:
		tools = "all but " + strings.Join(res.DenyTools, ", ")
	}
	cred := "the service's own"
	if res.CredentialID != "" {
		cred = res.CredentialID
	}
	if err := keyValues(c.App.Writer, [][2]string{{"deck", res.DeckName}, {"service", res.ServiceName},
		{"tools", tools}, {"credential", cred}}); err != nil {
		return err
	}
	for _, w := range res.Warnings {
		if _, err := fmt.Fprintf(c.App.ErrWriter, "warning: %s\n", w.Message); err != nil {
			return err
		}
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
