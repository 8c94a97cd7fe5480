package cli

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli/client"
)

// repeated is a repeatable flag value kept verbatim: urfave's string slices split on commas,
// which a header value such as "gzip, br" contains.
type repeated []string

func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }
func (r *repeated) String() string     { return strings.Join(*r, " ") }

func repeatedFlag(name, usage string) cli.Flag {
	return &cli.GenericFlag{Name: name, Usage: usage + " (repeatable)", Value: &repeated{}}
}

func repeatedValues(c *cli.Context, name string) []string {
	if r, ok := c.Generic(name).(*repeated); ok && r != nil {
		return *r
	}
	return nil
}

// serviceFieldFlags are the fields `service add` and `service edit` share.
func serviceFieldFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "transport", Usage: "remote transport: auto, streamable_http or sse"},
		repeatedFlag("header", "header sent to a remote server, as \"Name: value\" or Name=value; secret headers go through --header-from-stdin"),
		repeatedFlag("header-from-stdin", "header K whose value is read from stdin or a hidden prompt"),
		repeatedFlag("env", "environment variable K=V of a local server"),
		repeatedFlag("env-from-stdin", "environment variable K whose value is read from stdin or a hidden prompt"),
		&cli.StringFlag{Name: "cwd", Usage: "working directory of a local server"},
		&cli.StringFlag{Name: "credential", Usage: "credential id or label whose secret authenticates the calls"},
		&cli.StringFlag{Name: "description", Usage: "what the service is for (agents read it)"},
		&cli.IntFlag{Name: "timeout", Usage: "seconds a downstream call may take"},
		&cli.BoolFlag{Name: "personal", Usage: "each person brings their own secret for the service's credential (agent-deck credential set-mine) or their own OAuth sign-in (agent-deck service connect)"},
		jsonFlag,
	}
}

const serviceAddDescription = `Remote:  agent-deck service add NAME URL [--header "Name: value"]... [--header-from-stdin Name]
Local:   agent-deck service add NAME [--env K=V]... [--env-from-stdin K] -- COMMAND ARGS...

Secret values never go on the command line (shell history, process lists): a header whose
name carries a secret (Authorization, *-Api-Key, *Token*...) is refused in --header; pass its
name to --header-from-stdin and pipe the value in, or type it at the hidden prompt.`

func serviceAddCommand() *cli.Command {
	return &cli.Command{
		Name: "add", Usage: "register a downstream MCP server (remote URL or local command)",
		ArgsUsage: "NAME URL | NAME -- COMMAND ARGS...", Description: serviceAddDescription,
		Flags:  append(serviceFieldFlags(), &cli.StringFlag{Name: "deck", Usage: "also link the service to this deck"}),
		Action: serviceAddAction,
	}
}

// serviceArgs splits NAME URL / NAME -- COMMAND ARGS...; local reports whether "--" was given.
func serviceArgs(c *cli.Context) (args []string, local bool, err error) {
	local = slices.Contains(c.Args().Slice(), "--")
	args, err = positional(c)
	return args, local, err
}

func serviceAddAction(c *cli.Context) error {
	args, local, err := serviceArgs(c)
	if err != nil {
		return err
	}
	name := commandName(c)
	switch {
	case len(args) == 0 || strings.TrimSpace(args[0]) == "":
		return userError("%s: expected a NAME, then a URL or -- COMMAND ARGS...", name)
	case local && len(args) < 2:
		return userError("%s: expected the local server's command after --", name)
	case !local && len(args) != 2:
		return userError("%s: expected NAME URL for a remote server, or NAME -- COMMAND ARGS... for a local one", name)
	}
	headers, env, err := serviceSecrets(c)
	if err != nil {
		return err
	}
	in := core.ServiceInput{Name: args[0], Transport: backend.Transport(c.String("transport")),
		Description: c.String("description"), CredentialID: c.String("credential"), TimeoutSeconds: c.Int("timeout"),
		Personal: c.Bool("personal")}
	if local {
		in.Type, in.LocalCommand, in.LocalArgs, in.LocalWorkingDir, in.LocalEnv = backend.ServiceLocal, args[1], args[2:], c.String("cwd"), env
	} else {
		in.Type, in.URL, in.Headers = backend.ServiceRemote, args[1], headers
	}
	if err := kindMismatch(local, headers, env, c.String("cwd"), c.String("transport")); err != nil {
		return err
	}
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	card, err := cl.CreateService(c.Context, in)
	if err != nil {
		return fail(err)
	}
	if c.Bool("json") {
		if err := printJSON(c.App.Writer, card); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(c.App.Writer, "Added service %s (%s, %s)\n", card.Name, card.Type, serviceTarget(card))
	}
	return linkToDeck(c, cl, card)
}

// kindMismatch refuses flags that belong to the other kind of service rather than dropping them.
func kindMismatch(local bool, headers, env map[string]string, cwd, transport string) error {
	if local && (len(headers) > 0 || transport != "") {
		return userError("--header and --transport apply to remote services; a local one takes --env and --cwd")
	}
	if !local && (len(env) > 0 || cwd != "") {
		return userError("--env and --cwd apply to local services (NAME -- COMMAND ARGS...); a remote one takes --header")
	}
	return nil
}

// linkToDeck links a new service to --deck; a failure says the service itself was created.
func linkToDeck(c *cli.Context, cl *client.Client, card backend.ServiceCard) error {
	deck := c.String("deck")
	if deck == "" {
		return nil
	}
	if _, err := cl.LinkCard(c.Context, deck, core.CardRef{CardType: backend.CardService, CardID: card.ID}); err != nil {
		msg := fail(err).Error()
		return cli.Exit(fmt.Sprintf("service %s was created, but linking it to deck %s failed: %s\n  link it later with the dashboard or POST /api/v1/decks/%s/cards",
			card.Name, deck, msg, deck), ExitCode(err))
	}
	if !c.Bool("json") {
		fmt.Fprintf(c.App.Writer, "Linked %s to deck %s\n", card.Name, deck)
	}
	return nil
}

// serviceSecrets gathers --header/--env pairs and the values of --header-from-stdin and
// --env-from-stdin. Secret headers on argv are refused without echoing their value.
func serviceSecrets(c *cli.Context) (headers, env map[string]string, err error) {
	if headers, err = headerPairs(repeatedValues(c, "header")); err != nil {
		return nil, nil, err
	}
	for k := range headers {
		if core.IsSecretHeader(k) {
			return nil, nil, userError("header %s carries a secret and is not taken on the command line: use --header-from-stdin %s and pipe the value in (or type it at the prompt)", k, k)
		}
	}
	if env, err = pairs("--env", repeatedValues(c, "env")); err != nil {
		return nil, nil, err
	}
	hs, es := repeatedValues(c, "header-from-stdin"), repeatedValues(c, "env-from-stdin")
	if len(hs)+len(es) > 1 && !stdinIsTerminal(c) {
		return nil, nil, userError("stdin holds one value, but %d names ask for one (--header-from-stdin, --env-from-stdin): give one per command, then add the others with `service edit`", len(hs)+len(es))
	}
	for _, k := range hs {
		if headers, err = readInto(c, headers, "header", k); err != nil {
			return nil, nil, err
		}
	}
	for _, k := range es {
		if env, err = readInto(c, env, "env", k); err != nil {
			return nil, nil, err
		}
	}
	return headers, env, nil
}

func readInto(c *cli.Context, m map[string]string, what, key string) (map[string]string, error) {
	if strings.TrimSpace(key) == "" || strings.Contains(key, "=") {
		return nil, userError("--%s-from-stdin takes a name only (K), not K=V: the value is read from stdin", what)
	}
	v, err := readSecret(c, fmt.Sprintf("Value of %s %s: ", what, key))
	if err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]string{}
	}
	m[key] = v
	return m, nil
}

// headerPairs parses --header values written as HTTP writes them ("Name: value") or as the
// other pair flags are (Name=value): the first ":" or "=" ends the name, so either may appear
// in the value. Space around a value after ":" is dropped, as HTTP does.
func headerPairs(list []string) (map[string]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(list))
	for _, h := range list {
		i := strings.IndexAny(h, ":=")
		if i < 0 || strings.TrimSpace(h[:i]) == "" {
			return nil, userError("--header expects \"Name: value\" (or Name=value), got a value without a name or a separator")
		}
		k, v := strings.TrimSpace(h[:i]), h[i+1:]
		if h[i] == ':' {
			v = strings.TrimSpace(v)
		}
		out[k] = v
	}
	return out, nil
}

// pairs parses K=V values of a flag.
func pairs(flag string, list []string) (map[string]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(list))
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, userError("%s expects K=V, got a value without a name or without =", flag)
		}
		out[k] = v
	}
	return out, nil
}

func stdinIsTerminal(c *cli.Context) bool {
	f, ok := c.App.Reader.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
