package cli

import (
	"fmt"
	"maps"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

func serviceEditCommand() *cli.Command {
	return &cli.Command{
		Name: "edit", Usage: "change some fields of a service; only the flags given change",
		ArgsUsage: "NAME [-- COMMAND ARGS...]",
		Description: "Headers and env given are added or replaced; the others are kept (secret values stay as stored)\n" +
			"unless named in --unset-header or --unset-env. A local server's command changes with -- COMMAND ARGS...",
		Flags: append(serviceFieldFlags(),
			&cli.StringFlag{Name: "url", Usage: "new URL of a remote server"},
			&cli.StringFlag{Name: "name", Usage: "new name"},
			repeatedFlag("unset-header", "header K to remove from a remote server"),
			repeatedFlag("unset-env", "environment variable K to remove from a local server")),
		Action: serviceEditAction,
	}
}

func serviceEditAction(c *cli.Context) error {
	args, local, err := serviceArgs(c)
	if err != nil {
		return err
	}
	if len(args) == 0 || strings.TrimSpace(args[0]) == "" || (!local && len(args) != 1) || (local && len(args) < 2) {
		return userError("%s: expected NAME, optionally followed by -- COMMAND ARGS...", commandName(c))
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
	unsetH, unsetE := repeatedValues(c, "unset-header"), repeatedValues(c, "unset-env")
	if cur.Type == backend.ServiceLocal && len(unsetH) > 0 {
		return userError("%s is a local service: --unset-header applies to remote ones (a local one takes --unset-env)", cur.Name)
	}
	if cur.Type != backend.ServiceLocal && len(unsetE) > 0 {
		return userError("%s is a remote service: --unset-env applies to local ones (a remote one takes --unset-header)", cur.Name)
	}
	if local && cur.Type != backend.ServiceLocal {
		return userError("%s is a remote service: -- COMMAND ARGS... applies to local ones (change its --url instead)", cur.Name)
	}
	var p core.ServicePatch
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
	if c.IsSet("personal") {
		v := c.Bool("personal")
		p.Personal = &v
	}
	if local {
		command, rest := args[1], args[2:]
		p.LocalCommand, p.LocalArgs = &command, &rest
	}
	if len(headers)+len(unsetH) > 0 {
		merged, err := editedMap("header", cur.Name, cur.Headers, headers, unsetH, strings.EqualFold)
		if err != nil {
			return err
		}
		p.Headers = &merged
	}
	if len(env)+len(unsetE) > 0 {
		merged, err := editedMap("env", cur.Name, cur.LocalEnv, env, unsetE, func(a, b string) bool { return a == b })
		if err != nil {
			return err
		}
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

// editedMap is the stored map (masked values keep what is stored) with set added or replaced and
// the names in unset removed. Naming a key that is not there, or both setting and unsetting one,
// is an error, so a typo does not pass for a change.
func editedMap(what, service string, stored, set map[string]string, unset []string, same func(a, b string) bool) (map[string]string, error) {
	merged := maps.Clone(stored)
	if merged == nil {
		merged = map[string]string{}
	}
	maps.Copy(merged, set)
	for _, name := range unset {
		for k := range set {
			if same(k, name) {
				return nil, userError("--%s %s and --unset-%s %s: set it or remove it, not both", what, k, what, name)
			}
		}
		found := false
		for k := range merged {
			if same(k, name) {
				delete(merged, k)
				found = true
			}
		}
		if !found {
			have := "none"
			if len(stored) > 0 {
				have = strings.Join(sortedKeys(stored), ", ")
			}
			return nil, userError("--unset-%s %s: service %s has no such %s (it has: %s)", what, name, service, what, have)
		}
	}
	return merged, nil
}

func setString(c *cli.Context, flag string, dst **string) {
	if c.IsSet(flag) {
		v := c.String(flag)
		*dst = &v
	}
}
