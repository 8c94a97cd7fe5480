package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli/client"
)

func deckCommand() *cli.Command {
	return cardKind{
		name: "deck", noun: "deck", aliases: []string{"decks"},
		header: []string{"ID", "NAME", "OWNER", "SHARED"},
		list: func(ctx context.Context, cl *client.Client) (any, [][]string, error) {
			list, err := cl.ListDecks(ctx)
			rows := make([][]string, len(list))
			for i, d := range list {
				rows[i] = []string{d.ID, d.Name, d.Owner, sharedCell(d)}
			}
			return orEmptyList(list), rows, err
		},
		show: func(ctx context.Context, cl *client.Client, ref string) (any, func(io.Writer) error, error) {
			d, err := cl.GetDeck(ctx, ref)
			return d, func(w io.Writer) error { return printDeck(w, d) }, err
		},
		delete: func(ctx context.Context, cl *client.Client, ref string) ([]string, error) {
			return nil, cl.DeleteDeck(ctx, ref)
		},
		extra: []*cli.Command{deckCreateCommand(), deckRenameCommand(), deckToolsCommand(), deckCredentialCommand(),
			deckSamplingCommand(), deckReviewCommand(), deckLimitsCommand(), deckProjectCommand(), deckShareCommand()},
	}.command()
}

func deckCreateCommand() *cli.Command {
	return &cli.Command{
		Name: "create", Usage: "create an empty deck", ArgsUsage: "NAME", Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			name, err := oneArg(c, "deck name")
			if err != nil {
				return err
			}
			cl, err := apiClient(c)
			if err != nil {
				return err
			}
			d, err := cl.CreateDeck(c.Context, core.DeckInput{Name: name})
			if err != nil {
				return fail(err)
			}
			if c.Bool("json") {
				return printJSON(c.App.Writer, d)
			}
			_, err = fmt.Fprintf(c.App.Writer, "Created deck %s (%s)\n", d.Name, d.ID)
			return err
		},
	}
}

// printDeck shows a deck and its cards, in deck order.
func printDeck(w io.Writer, d core.DeckSnapshot) error {
	if err := keyValues(w, [][2]string{{"id", d.ID}, {"name", d.Name}}); err != nil {
		return err
	}
	var rows [][]string
	for i, s := range d.Services {
		rows = append(rows, []string{"service", strconv.Itoa(i + 1), s.ID, s.Name})
	}
	for i, c := range d.Credentials {
		rows = append(rows, []string{"credential", strconv.Itoa(i + 1), c.ID, c.Label})
	}
	for i, p := range d.Playbooks {
		rows = append(rows, []string{"playbook", strconv.Itoa(i + 1), p.ID, p.Title})
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "\nNo cards on this deck.")
		return err
	}
	fmt.Fprintln(w)
	return printTable(w, []string{"TYPE", "#", "ID", "NAME"}, rows)
}
