package cli

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend/core"
)

// deckReviewCommand shows or sets whether agent tokens' playbook writes on a deck are held for
// review (proposals a person accepts) or take effect at once.
func deckReviewCommand() *cli.Command {
	return &cli.Command{
		Name:      "review",
		Usage:     "hold agents' playbook changes on a deck for review (on), let them take effect (off), or follow the server (default)",
		ArgsUsage: "DECK [on|off|default]",
		Flags:     []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			args, err := positional(c)
			if err != nil {
				return err
			}
			if len(args) < 1 || len(args) > 2 || strings.TrimSpace(args[0]) == "" {
				return userError("usage: agent-deck deck review DECK [on|off|default]")
			}
			cl, err := apiClient(c)
			if err != nil {
				return err
			}
			var out core.DeckPlaybookReview
			if len(args) == 1 {
				out, err = cl.DeckPlaybookReview(c.Context, args[0])
			} else {
				var required *bool
				switch args[1] {
				case "on", "off":
					on := args[1] == "on"
					required = &on
				case "default":
				default:
					return userError("%s: expected on, off or default, got %q", commandName(c), args[1])
				}
				out, err = cl.SetDeckPlaybookReview(c.Context, args[0], required)
			}
			if err != nil {
				return fail(err)
			}
			if c.Bool("json") {
				return printJSON(c.App.Writer, out)
			}
			return printReview(c, out)
		},
	}
}

func printReview(c *cli.Context, out core.DeckPlaybookReview) error {
	state := "take effect at once"
	if out.Required {
		state = "are held for review (agent-deck proposals)"
	}
	source := "the deck's own setting"
	if out.Source == "server" {
		source = "the server's default, serve --playbook-review"
	}
	_, err := fmt.Fprintf(c.App.Writer, "On deck %s, agents' playbook changes %s (%s); exec and skill are admin-only either way\n",
		out.DeckName, state, source)
	return err
}
