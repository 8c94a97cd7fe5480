package cli

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli/client"
)

func tokenCommand() *cli.Command {
	return &cli.Command{
		Name: "token", Aliases: []string{"tokens"}, Usage: "manage API tokens (yours; an admin's: anyone's)",
		Subcommands: []*cli.Command{
			{Name: "create", Usage: "create a token; its secret is printed once", ArgsUsage: "NAME",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "scope", Value: string(backend.ScopeAgent), Usage: "admin, agent or agent:read"},
					&cli.StringFlag{Name: "person", Usage: "the person the token acts for (name or id; default: yours); only an admin names someone else"},
					jsonFlag,
				},
				Action: tokenCreate},
			{Name: "list", Aliases: []string{"ls"}, Usage: "list tokens", Flags: []cli.Flag{jsonFlag}, Action: tokenList},
			{Name: "revoke", Usage: "revoke a token (takes effect on its next request)", ArgsUsage: "ID",
				Flags: []cli.Flag{yesFlag, jsonFlag}, Action: tokenRevoke},
		},
	}
}

func tokenCreate(c *cli.Context) error {
	name, err := oneArg(c, "token name")
	if err != nil {
		return err
	}
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	t, err := cl.CreateToken(c.Context, core.TokenInput{Name: name, Scope: backend.Scope(c.String("scope")),
		Person: c.String("person")})
	if err != nil {
		return fail(err)
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, t)
	}
	fmt.Fprintf(c.App.ErrWriter, "Created token %s (%s, scope %s, for %s). It is shown once:\n", t.Name, t.ID, t.Scope, t.Person)
	_, err = fmt.Fprintln(c.App.Writer, t.Secret)
	return err
}

func tokenList(c *cli.Context) error {
	return printList(c, func(cl *client.Client) ([]backend.Token, error) { return cl.ListTokens(c.Context) },
		[]string{"ID", "NAME", "SCOPE", "PERSON", "CREATED", "LAST USED", "REVOKED"},
		func(t backend.Token) []string {
			return []string{t.ID, t.Name, string(t.Scope), t.Person, stamp(&t.CreatedAt), stamp(t.LastUsedAt), stamp(t.RevokedAt)}
		})
}

func tokenRevoke(c *cli.Context) error {
	id, err := oneArg(c, "token id")
	if err != nil {
		return err
	}
	if err := confirm(c, fmt.Sprintf("Revoke token %q? Everything that uses it loses access", id)); err != nil {
		return err
	}
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	if err := cl.RevokeToken(c.Context, id); err != nil {
		return fail(err)
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, map[string]any{"id": id, "revoked": true})
	}
	_, err = fmt.Fprintf(c.App.Writer, "Revoked token %s\n", id)
	return err
}

func stamp(t *time.Time) string {
	if t == nil || t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}
