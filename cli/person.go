package cli

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli/client"
)

// personCommand manages the people of a team hub: who tokens, decks and cards belong to.
func personCommand() *cli.Command {
	roles := strings.Join([]string{string(backend.RoleAdmin), string(backend.RoleMember)}, "|")
	signIn := []cli.Flag{
		&cli.StringFlag{Name: "email", Usage: "e-mail an OpenID Connect sign-in maps to this person"},
		&cli.StringFlag{Name: "oidc-subject", Usage: "OpenID Connect subject (sub) that maps to this person"},
	}
	return &cli.Command{
		Name: "person", Aliases: []string{"people"}, Usage: "manage the people of the hub (admin)",
		Subcommands: []*cli.Command{
			{Name: "add", Usage: "add a person", ArgsUsage: "NAME",
				Flags: append([]cli.Flag{&cli.StringFlag{Name: "role", Value: string(backend.RoleMember), Usage: roles},
					jsonFlag}, signIn...),
				Action: personAdd},
			{Name: "list", Aliases: []string{"ls"}, Usage: "list the people",
				Flags: []cli.Flag{&cli.BoolFlag{Name: "removed", Usage: "include removed people"}, jsonFlag}, Action: personList},
			{Name: "edit", Usage: "change a person's role or sign-in", ArgsUsage: "NAME",
				Flags: append([]cli.Flag{&cli.StringFlag{Name: "role", Usage: roles}, jsonFlag}, signIn...), Action: personEdit},
			{Name: "remove", Aliases: []string{"rm"}, Usage: "remove a person: their tokens are revoked and their MCP sessions end at once",
				ArgsUsage: "NAME", Flags: []cli.Flag{yesFlag, jsonFlag}, Action: personRemove},
			{Name: "me", Usage: "who the token acts for", Flags: []cli.Flag{jsonFlag}, Action: personMe},
		},
	}
}

func personAdd(c *cli.Context) error {
	name, err := oneArg(c, "person name")
	if err != nil {
		return err
	}
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	p, err := cl.AddPerson(c.Context, core.PersonInput{Name: name, Role: backend.Role(c.String("role")),
		Email: c.String("email"), OIDCSubject: c.String("oidc-subject")})
	if err != nil {
		return fail(err)
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, p)
	}
	_, err = fmt.Fprintf(c.App.Writer, "Added %s (%s, %s). Make them a token with: agent-deck token create NAME --person %s\n",
		p.Name, p.Role, p.ID, quoteArg(p.Name))
	return err
}

func personList(c *cli.Context) error {
	return printList(c, func(cl *client.Client) ([]backend.Person, error) { return cl.ListPeople(c.Context, c.Bool("removed")) },
		[]string{"NAME", "ROLE", "EMAIL", "OIDC SUBJECT", "ADDED", "REMOVED"},
		func(p backend.Person) []string {
			return []string{p.Name, string(p.Role), dash(p.Email), dash(p.OIDCSubject), stamp(&p.CreatedAt), stamp(p.RemovedAt)}
		})
}

func personEdit(c *cli.Context) error {
	name, err := oneArg(c, "person name")
	if err != nil {
		return err
	}
	var in core.PersonPatch
	if c.IsSet("role") {
		r := backend.Role(c.String("role"))
		in.Role = &r
	}
	if c.IsSet("email") {
		v := c.String("email")
		in.Email = &v
	}
	if c.IsSet("oidc-subject") {
		v := c.String("oidc-subject")
		in.OIDCSubject = &v
	}
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	p, err := cl.UpdatePerson(c.Context, name, in)
	if err != nil {
		return fail(err)
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, p)
	}
	_, err = fmt.Fprintf(c.App.Writer, "%s is %s\n", p.Name, p.Role)
	return err
}

func personRemove(c *cli.Context) error {
	name, err := oneArg(c, "person name")
	if err != nil {
		return err
	}
	if err := confirm(c, fmt.Sprintf("Remove %q? Their tokens are revoked and their agents' sessions end", name)); err != nil {
		return err
	}
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	r, err := cl.RemovePerson(c.Context, name)
	if err != nil {
		return fail(err)
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, r)
	}
	_, err = fmt.Fprintf(c.App.Writer, "Removed %s: %d token(s) revoked, %d MCP session(s) ended. Their decks and cards stay.\n",
		r.Person.Name, r.RevokedTokens, len(r.EndedSessions))
	return err
}

func personMe(c *cli.Context) error {
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	p, err := cl.Me(c.Context)
	if err != nil {
		return fail(err)
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, p)
	}
	_, err = fmt.Fprintf(c.App.Writer, "%s (%s)\n", p.Name, p.Role)
	return err
}

// dash shows an empty cell as "-".
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// quoteArg quotes a name for a shell command line when it needs it.
func quoteArg(s string) string {
	if strings.ContainsAny(s, " \t'\"$`\\") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}
