package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli/client"
)

// playbookFlags are the fields `playbook add` and `playbook edit` share.
func playbookFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "body-file", Usage: "file holding the markdown body (- reads stdin)"},
		&cli.StringFlag{Name: "body", Usage: "the markdown body, for a short one"},
		&cli.StringSliceFlag{Name: "trigger", Usage: "a phrase that should make an agent follow it (repeat; edit replaces the list)"},
		&cli.StringFlag{Name: "exec", Usage: "the command line the playbook runs, if any"},
		&cli.StringFlag{Name: "skill", Usage: "the skill name it maps to, if any"},
		jsonFlag,
	}
}

func playbookAddCommand() *cli.Command {
	return &cli.Command{
		Name: "add", Usage: "add a playbook: a markdown runbook with trigger phrases", ArgsUsage: "TITLE",
		Description: "agent-deck playbook add \"Deploy\" --body-file deploy.md --trigger \"deploy to staging\" --deck dev\n" +
			"Dependencies on credentials and services are detected from the text, as for agents.",
		Flags: append(playbookFlags(),
			&cli.StringFlag{Name: "id", Usage: "the playbook's id (default pb_<slug of the title>)"},
			&cli.StringFlag{Name: "deck", Usage: "link the new playbook to this deck"}),
		Action: playbookAdd,
	}
}

func playbookEditCommand() *cli.Command {
	return &cli.Command{
		Name: "edit", Usage: "change some fields of a playbook; only the flags given change (the previous version is kept)",
		ArgsUsage: "ID-OR-TITLE",
		Flags:     append(playbookFlags(), &cli.StringFlag{Name: "title", Usage: "a new title"}),
		Action:    playbookEdit,
	}
}

func playbookAdd(c *cli.Context) error {
	title, err := oneArg(c, "playbook title")
	if err != nil {
		return err
	}
	body, given, err := playbookBody(c)
	if err != nil {
		return err
	}
	if !given {
		return userError("playbook add: give the body with --body-file FILE (- for stdin) or --body TEXT")
	}
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	res, err := cl.CreatePlaybook(c.Context, backend.PlaybookInput{Title: title, Body: body, ID: c.String("id"),
		Triggers: c.StringSlice("trigger"), Exec: c.String("exec"), Skill: c.String("skill")})
	if err != nil {
		return fail(err)
	}
	if err := printPlaybookResult(c, "Created", res); err != nil {
		return err
	}
	return linkPlaybook(c, cl, res.Playbook)
}

func playbookEdit(c *cli.Context) error {
	ref, err := oneArg(c, "playbook id or title")
	if err != nil {
		return err
	}
	var patch core.PlaybookPatch
	body, given, err := playbookBody(c)
	if err != nil {
		return err
	}
	if given {
		patch.Body = &body
	}
	for name, field := range map[string]**string{"title": &patch.Title, "exec": &patch.Exec, "skill": &patch.Skill} {
		if c.IsSet(name) {
			v := c.String(name)
			*field = &v
		}
	}
	if c.IsSet("trigger") {
		t := c.StringSlice("trigger")
		patch.Triggers = &t
	}
	if patch == (core.PlaybookPatch{}) {
		return userError("playbook edit: nothing to change; give --title, --body-file, --body, --trigger, --exec or --skill")
	}
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	res, err := cl.UpdatePlaybook(c.Context, ref, patch)
	if err != nil {
		return fail(err)
	}
	return printPlaybookResult(c, "Changed", res)
}

// playbookBody reads the body from --body-file (a path, or - for stdin) or --body; given is
// false when neither was set.
func playbookBody(c *cli.Context) (body string, given bool, err error) {
	if c.IsSet("body-file") && c.IsSet("body") {
		return "", false, userError("%s: give the body once, with --body-file or --body", commandName(c))
	}
	if c.IsSet("body") {
		return c.String("body"), true, nil
	}
	if !c.IsSet("body-file") {
		return "", false, nil
	}
	path := c.String("body-file")
	var raw []byte
	if path == "-" {
		raw, err = io.ReadAll(io.LimitReader(c.App.Reader, backend.MaxBodyBytes+1))
	} else {
		raw, err = os.ReadFile(path)
	}
	if err != nil {
		return "", false, userError("reading %s: %v", path, err)
	}
	return string(raw), true, nil
}

// printPlaybookResult says what was written and what the server advised about it.
func printPlaybookResult(c *cli.Context, verb string, res core.PlaybookResult) error {
	if c.Bool("json") {
		return printJSON(c.App.Writer, res)
	}
	fmt.Fprintf(c.App.Writer, "%s playbook %s (%s)\n", verb, res.Title, res.ID)
	for _, w := range res.Warnings {
		fmt.Fprintf(c.App.ErrWriter, "warning: %s\n", w.Message)
	}
	if len(res.UnknownDependencies) > 0 {
		fmt.Fprintf(c.App.ErrWriter, "warning: it names %s, which no card has (kept as dependencies)\n",
			strings.Join(res.UnknownDependencies, ", "))
	}
	return nil
}

// linkPlaybook links a new playbook to --deck; a failure says the playbook itself was created.
func linkPlaybook(c *cli.Context, cl *client.Client, p backend.Playbook) error {
	deck := c.String("deck")
	if deck == "" {
		return nil
	}
	if _, err := cl.LinkCard(c.Context, deck, core.CardRef{CardType: backend.CardPlaybook, CardID: p.ID}); err != nil {
		return cli.Exit(fmt.Sprintf("playbook %s was created, but linking it to deck %s failed: %s", p.Title, deck,
			fail(err).Error()), ExitCode(err))
	}
	if !c.Bool("json") {
		fmt.Fprintf(c.App.Writer, "Linked %s to deck %s\n", p.Title, deck)
	}
	return nil
}

func deckRenameCommand() *cli.Command {
	return &cli.Command{
		Name: "rename", Usage: "give a deck a new name (pins made with agent-deck use follow it with use --refresh)",
		ArgsUsage: "DECK NEW-NAME", Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			args, err := positional(c)
			if err != nil {
				return err
			}
			if len(args) != 2 || strings.TrimSpace(args[0]) == "" {
				return userError("deck rename: expected the deck (id or name) and its new name")
			}
			cl, err := apiClient(c)
			if err != nil {
				return err
			}
			d, err := cl.RenameDeck(c.Context, args[0], args[1])
			if err != nil {
				return fail(err)
			}
			if c.Bool("json") {
				return printJSON(c.App.Writer, d)
			}
			_, err = fmt.Fprintf(c.App.Writer, "Renamed deck %s to %s\n", args[0], d.Name)
			return err
		},
	}
}
