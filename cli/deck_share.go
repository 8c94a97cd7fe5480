package cli

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// deckShareCommand says who besides its owner may use a deck.
func deckShareCommand() *cli.Command {
	return &cli.Command{
		Name: "share", Usage: "share a deck with everyone or with named people, or make it private (its owner or an admin)",
		ArgsUsage: "DECK",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "everyone", Usage: "every person may use the deck"},
			&cli.StringSliceFlag{Name: "with", Usage: "people (names) who may use the deck besides its owner; repeatable or comma-separated"},
			&cli.BoolFlag{Name: "private", Usage: "only the owner (and admins) may use the deck"},
			&cli.StringFlag{Name: "owner", Usage: "hand the deck to this person"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			deck, err := oneArg(c, "deck")
			if err != nil {
				return err
			}
			in, err := sharingInput(c)
			if err != nil {
				return err
			}
			cl, err := apiClient(c)
			if err != nil {
				return err
			}
			var d backend.Deck
			if err := cl.Do(c.Context, http.MethodPut, "/decks/"+url.PathEscape(deck)+"/sharing", nil, in, &d); err != nil {
				return fail(err)
			}
			if c.Bool("json") {
				return printJSON(c.App.Writer, d)
			}
			_, err = fmt.Fprintf(c.App.Writer, "Deck %s (owner %s): %s\n", d.Name, d.Owner, sharedCell(d))
			return err
		},
	}
}

// sharingInput reads exactly one of --everyone, --with and --private.
func sharingInput(c *cli.Context) (core.DeckSharingInput, error) {
	in := core.DeckSharingInput{Owner: c.String("owner")}
	var with []string
	for _, v := range c.StringSlice("with") {
		for _, name := range strings.Split(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				with = append(with, name)
			}
		}
	}
	n := 0
	if c.Bool("everyone") {
		in.Sharing, n = backend.ShareEveryone, n+1
	}
	if len(with) > 0 {
		in.Sharing, in.SharedWith, n = backend.SharePeople, with, n+1
	}
	if c.Bool("private") {
		in.Sharing, n = backend.SharePrivate, n+1
	}
	if n != 1 {
		return in, cli.Exit("agent-deck deck share: give exactly one of --everyone, --with NAME[,NAME…] or --private", 1)
	}
	return in, nil
}

// sharedCell says who besides its owner may use a deck.
func sharedCell(d backend.Deck) string {
	switch d.Sharing {
	case backend.ShareEveryone:
		return "everyone"
	case backend.SharePeople:
		return "with " + strings.Join(d.SharedWith, ", ")
	}
	return "private"
}
