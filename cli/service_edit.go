package cli

import (
	"fmt"
	"maps"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
)

func serviceEditCommand() *cli.Command {
	return &cli.Command{
		Name: "edit", Usage: "change some fields of a service; only the flags given change",
		ArgsUsage: "NAME [-- COMMAND ARGS...]",
		Description: "Headers and env given are added or replaced; the others are kept (secret values stay as stored).\n" +
			"A local server's command changes with -- COMMAND ARGS...",
		Flags: append(serviceFieldFlags(),
			&cli.StringFlag{Name: "url", Usage: "new URL of a remote server"},
			&cli.StringFlag{Name: "name", Usage: "new name"}),
		Action: serviceEditAction,
	}
}

func serviceEditAction(c *cli.Context) error {
	args, local, err := serviceArgs(c)
	if err != nil {
		return err
	}
	if len(args) == 0 || strings.TrimSpace(args[0]) == "" || (!local && len(args) != 1) || (local && len(args) < 2) {
		return userError("%s: expected NAME, optionally followed by -- COMMAND ARGS...", c.Command.FullName())
	}
	headers, env, err := serviceSecrets(c)
	if err != nil {
		return err
	}
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	cur, err := cl.GetService(c.Context, args[0])
	if err != nil {
		return fail(err)
	}
	if err := kindMismatch(cur.Type == backend.ServiceLocal, headers, env, c.String("cwd"), c.String("transport")); err != nil {
		return err
	}
	if local && cur.Type != backend.ServiceLocal {
		return userError("%s is a remote service: -- COMMAND ARGS... applies to local ones (change its --url instead)", cur.Name)
	}
	var p backend.ServicePatch
	setString(c, "name", &p.Name)
	setString(c, "url", &p.URL)
	setString(c, "description", &p.Description)
	setString(c, "credential", &p.CredentialID)
	setString(c, "cwd", &p.LocalWorkingDir)
	if c.IsSet("transport") {
		t := backend.Transport(c.String("transport"))
		p.Transport = &t
	}
	if c.IsSet("timeout") {
		n := c.Int("timeout")
		p.TimeoutSeconds = &n
	}
	if local {
		command, rest := args[1], args[2:]
		p.LocalCommand, p.LocalArgs = &command, &rest
	}
	if len(headers) > 0 {
		merged := maps.Clone(cur.Headers) // masked values keep what is stored
		if merged == nil {
			merged = map[string]string{}
		}
		maps.Copy(merged, headers)
		p.Headers = &merged
	}
	if len(env) > 0 {
		merged := maps.Clone(cur.LocalEnv)
		if merged == nil {
			merged = map[string]string{}
		}
		maps.Copy(merged, env)
		p.LocalEnv = &merged
	}
	card, err := cl.UpdateService(c.Context, cur.ID, p)
	if err != nil {
		return fail(err)
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, card)
	}
	_, err = fmt.Fprintf(c.App.Writer, "Updated service %s\n", card.Name)
	return err
}

func setString(c *cli.Context, flag string, dst **string) {
	if c.IsSet(flag) {
		v := c.String(flag)
		*dst = &v
	}
}
