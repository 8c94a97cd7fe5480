package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend/core"
)

// deckProjectCommand shows or sets a deck's projected tools: its downstream tools listed to
// bound sessions as tools of their own.
func deckProjectCommand() *cli.Command {
	return &cli.Command{
		Name:      "project",
		Usage:     "list a deck's downstream tools to its agents as tools of their own (<service>__<tool>), or stop",
		ArgsUsage: "DECK [on|off]",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "max-tools", Usage: fmt.Sprintf("at most this many projected tools (default %d)", core.DefaultProjectionTools)},
			&cli.IntFlag{Name: "max-tokens", Usage: fmt.Sprintf("at most this many model tokens of them (default %d)", core.DefaultProjectionTokens)},
			jsonFlag,
		},
		Action: deckProject,
	}
}

func deckProject(c *cli.Context) error {
	args, err := positional(c)
	if err != nil {
		return err
	}
	if len(args) < 1 || len(args) > 2 || strings.TrimSpace(args[0]) == "" || len(args) == 2 && args[1] != "on" && args[1] != "off" {
		return userError("usage: agent-deck deck project DECK [on|off] [--max-tools N] [--max-tokens N]")
	}
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	var out core.DeckProjectionView
	if len(args) == 1 {
		out, err = cl.DeckProjection(c.Context, args[0])
	} else {
		out, err = cl.SetDeckProjection(c.Context, args[0], core.DeckProjectionInput{Enabled: args[1] == "on",
			MaxTools: c.Int("max-tools"), MaxTokens: c.Int("max-tokens")})
	}
	if err != nil {
		return fail(err)
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, out)
	}
	return printProjection(c.App.Writer, out)
}

// printProjection says what the deck projects, and the word of a cap that stopped the list.
func printProjection(w io.Writer, p core.DeckProjectionView) error {
	if !p.Enabled {
		_, err := fmt.Fprintf(w, "Deck %s projects no tools: agents reach its services through list_service_tools and call_service_tool\n", p.DeckName)
		return err
	}
	if _, err := fmt.Fprintf(w, "Deck %s projects its tools (caps: %d tools, %d tokens)\n", p.DeckName, p.MaxTools, p.MaxTokens); err != nil {
		return err
	}
	if p.Now == nil {
		return nil
	}
	if _, err := fmt.Fprintf(w, "Now: %d of %d tools, about %d tokens\n", p.Now.Tools, p.Now.Eligible, p.Now.Tokens); err != nil {
		return err
	}
	if p.Now.Capped != "" {
		if _, err := fmt.Fprintf(w, "Cap reached: %s\n", p.Now.Capped); err != nil {
			return err
		}
	}
	for _, s := range p.Now.Skipped {
		if _, err := fmt.Fprintf(w, "Not projected: %s (%s: %s)\n", s.Service, s.Code, s.Message); err != nil {
			return err
		}
	}
	return nil
}
