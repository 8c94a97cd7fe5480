package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli/client"
)

// maxSecretInput bounds a secret read from stdin.
const maxSecretInput = 64 << 10

func credentialCommand() *cli.Command {
	return cardKind{
		name: "credential", noun: "credential", aliases: []string{"credentials", "cred"},
		header: []string{"ID", "LABEL", "SCHEME", "ENV NAME", "SECRET"},
		list: func(ctx context.Context, cl *client.Client) (any, [][]string, error) {
			list, err := cl.ListCredentials(ctx)
			rows := make([][]string, len(list))
			for i, c := range list {
				rows[i] = []string{c.ID, c.Label, credentialScheme(c), c.EnvName, credentialSecretState(c)}
			}
			return orEmptyList(list), rows, err
		},
		show: func(ctx context.Context, cl *client.Client, ref string) (any, func(io.Writer) error, error) {
			c, err := cl.GetCredential(ctx, ref)
			return c, func(w io.Writer) error {
				return keyValues(w, [][2]string{{"id", c.ID}, {"label", c.Label}, {"scheme", credentialScheme(c)},
					{"env name", c.EnvName}, {"tags", joinOrDash(c.Tags)}, {"docs", orDash(c.DocsURL)},
					{"secret", credentialSecretState(c)}})
			}, err
		},
		delete: func(ctx context.Context, cl *client.Client, ref string) ([]string, error) {
			del, err := cl.DeleteCredential(ctx, ref)
			return deletionNotes(del), err
		},
		extra: []*cli.Command{credentialAddCommand(), credentialRotateCommand(), credentialSetMineCommand(), credentialUnsetMineCommand()},
	}.command()
}

func credentialScheme(c backend.Credential) string {
	if c.Scheme == backend.SchemeHeader {
		return "header " + c.HeaderName
	}
	return string(c.Scheme)
}

func secretState(has bool) string {
	if has {
		return "set"
	}
	return "missing"
}

func credentialAddCommand() *cli.Command {
	return &cli.Command{
		Name: "add", Usage: "store an API key; the secret is read from a hidden prompt or from stdin, never from arguments",
		ArgsUsage: "LABEL",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "env-name", Usage: "environment variable name (default <LABEL>_API_KEY)"},
			&cli.StringFlag{Name: "scheme", Usage: "bearer, header or http_basic_user (default bearer)"},
			&cli.StringFlag{Name: "header-name", Usage: "header the secret is sent in (scheme header)"},
			&cli.StringFlag{Name: "id", Usage: "credential id (default cred_<slug of label>)"},
			&cli.StringSliceFlag{Name: "tag", Usage: "tag (repeatable)"},
			&cli.StringFlag{Name: "docs-url", Usage: "where the key comes from"},
			&cli.BoolFlag{Name: "personal", Usage: "each person brings their own secret (agent-deck credential set-mine); no shared secret is read"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			label, err := oneArg(c, "label")
			if err != nil {
				return err
			}
			cl, err := apiClient(c)
			if err != nil {
				return err
			}
			secret := ""
			if !c.Bool("personal") {
				if secret, err = readSecret(c, "Secret for "+label+": "); err != nil {
					return err
				}
			}
			cred, err := cl.CreateCredential(c.Context, core.CredentialInput{
				Label: label, Value: secret, Scheme: backend.AuthScheme(c.String("scheme")),
				HeaderName: c.String("header-name"), EnvName: c.String("env-name"), ID: c.String("id"),
				Tags: c.StringSlice("tag"), DocsURL: c.String("docs-url"), Personal: c.Bool("personal")})
			if err != nil {
				return fail(err)
			}
			if c.Bool("json") {
				return printJSON(c.App.Writer, cred)
			}
			_, err = fmt.Fprintf(c.App.Writer, "Added credential %s (%s, env %s)\n", cred.ID, cred.Label, cred.EnvName)
			return err
		},
	}
}

func credentialRotateCommand() *cli.Command {
	return &cli.Command{
		Name: "rotate", Usage: "replace a credential's secret (hidden prompt or stdin)", ArgsUsage: "ID-OR-LABEL",
		Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			ref, cl, err := refAndClient(c, "credential id or label")
			if err != nil {
				return err
			}
			secret, err := readSecret(c, "New secret for "+ref+": ")
			if err != nil {
				return err
			}
			cred, err := cl.RotateCredential(c.Context, ref, secret)
			if err != nil {
				return fail(err)
			}
			if c.Bool("json") {
				return printJSON(c.App.Writer, cred)
			}
			_, err = fmt.Fprintf(c.App.Writer, "Rotated the secret of %s\n", cred.ID)
			return err
		},
	}
}

// readSecret reads a secret without echo on a terminal, or all of stdin otherwise (one trailing
// newline dropped).
func readSecret(c *cli.Context, prompt string) (string, error) {
	if f, ok := c.App.Reader.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(c.App.ErrWriter, prompt)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(c.App.ErrWriter)
		if err != nil {
			return "", userError("reading the secret: %v", err)
		}
		return string(b), nil
	}
	b, err := io.ReadAll(io.LimitReader(c.App.Reader, maxSecretInput+1))
	if err != nil {
		return "", userError("reading the secret from stdin: %v", err)
	}
	if len(b) > maxSecretInput {
		return "", userError("the secret on stdin is longer than %d bytes", maxSecretInput)
	}
	s := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if s == "" {
		return "", userError("no secret given: type it at the prompt or pipe it on stdin")
	}
	return s, nil
}

// deletionNotes says what a credential's deletion changed beyond its card: the decks whose
// choice of it fell back, and the services that call without it now.
func deletionNotes(del core.CredentialDeletion) []string {
	var out []string
	for _, f := range del.Fallbacks {
		now := f.Service + " has no credential of its own, so calls there go without one"
		if f.Now != "" {
			now = "calls there now present " + f.Service + "'s own credential, " + f.Now
		}
		out = append(out, fmt.Sprintf("  deck %s had chosen it for %s: %s", f.Deck, f.Service, now))
	}
	for _, s := range del.ServicesWithout {
		out = append(out, fmt.Sprintf("  service %s used it as its own credential: its calls go without one now", s))
	}
	return out
}
