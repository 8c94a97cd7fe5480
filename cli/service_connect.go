package cli

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli/client"
)

// serviceConnectCommand signs Agent Deck in to a service that needs OAuth: consent is a
// person's, in a browser; the authorization server sends the browser back to the deck server,
// which keeps the tokens. The command waits until that happens.
func serviceConnectCommand() *cli.Command {
	return &cli.Command{
		Name:      "connect",
		Usage:     "sign in to a service that needs OAuth (your own sign-in where each person brings their own; opens the browser and waits)",
		ArgsUsage: "NAME",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "no-open", Usage: "print the sign-in URL instead of opening the browser"},
			&cli.StringFlag{Name: "client-id", Usage: "a client id the service's authorization server issued for Agent Deck (else Agent Deck registers itself)"},
			&cli.BoolFlag{Name: "client-secret-stdin", Usage: "read that client's secret from the first line of stdin"},
			&cli.StringFlag{Name: "auth-method", Usage: "how the client secret is sent: client_secret_basic (default) or client_secret_post"},
			&cli.DurationFlag{Name: "wait", Value: 5 * time.Minute, Usage: "how long to wait for the sign-in to finish"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			ref, cl, err := refAndClient(c, "service id or name")
			if err != nil {
				return err
			}
			in := core.OAuthConnectInput{ClientID: c.String("client-id"), AuthMethod: c.String("auth-method")}
			if c.Bool("client-secret-stdin") {
				line, err := bufio.NewReader(c.App.Reader).ReadString('\n')
				if err != nil && line == "" {
					return userError("%s: --client-secret-stdin: expected the client secret on stdin", commandName(c))
				}
				in.ClientSecret = strings.TrimRight(line, "\r\n")
			}
			started, err := cl.ConnectService(c.Context, ref, in)
			if err != nil {
				return fail(err)
			}
			fmt.Fprintf(c.App.ErrWriter, "Sign in to %s at:\n  %s\n", started.ServiceName, started.AuthURL)
			if !c.Bool("no-open") {
				if err := openBrowser(started.AuthURL); err != nil {
					fmt.Fprintln(c.App.ErrWriter, "Could not open a browser; open the URL above.")
				}
			}
			fmt.Fprintln(c.App.ErrWriter, "Waiting for the sign-in to finish…")
			st, err := waitSignIn(c.Context, cl, started.ServiceID, c.Duration("wait"))
			if err != nil {
				return fail(err)
			}
			if c.Bool("json") {
				return printJSON(c.App.Writer, st)
			}
			if st.State != backend.OAuthStateConnected {
				return userError("the sign-in to %s did not finish: %s", started.ServiceName, authWord(st))
			}
			_, err = fmt.Fprintf(c.App.Writer, "Connected to %s (%s).\n", started.ServiceName, authWord(st))
			return err
		},
	}
}

// serviceDisconnectCommand forgets a service's tokens (revoking them where supported).
func serviceDisconnectCommand() *cli.Command {
	return &cli.Command{
		Name: "disconnect", Usage: "forget a service's sign-in (your own where each person brings their own; revoking its tokens where the server supports it)", ArgsUsage: "NAME",
		Flags: []cli.Flag{yesFlag},
		Action: func(c *cli.Context) error {
			ref, err := oneArg(c, "service id or name")
			if err != nil {
				return err
			}
			if err := confirm(c, fmt.Sprintf("Forget the sign-in of %s? A person signs in again with agent-deck service connect", ref)); err != nil {
				return err
			}
			cl, err := apiClient(c)
			if err != nil {
				return err
			}
			if err := cl.DisconnectService(c.Context, ref); err != nil {
				return fail(err)
			}
			_, err = fmt.Fprintf(c.App.Writer, "Disconnected %s.\n", ref)
			return err
		},
	}
}

// waitSignIn polls the sign-in state until the started sign-in is no longer pending.
func waitSignIn(ctx context.Context, cl *client.Client, ref string, wait time.Duration) (core.OAuthStatus, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		st, err := cl.ServiceAuth(ctx, ref)
		if err != nil {
			if ctx.Err() != nil {
				return st, backend.Errorf(backend.CodeDownstreamAuth, "the sign-in did not finish within %s", wait).
					WithHint("run agent-deck service connect again, and finish the sign-in in the browser")
			}
			return st, err
		}
		if !st.Pending {
			return st, nil
		}
		select {
		case <-ctx.Done():
			return st, backend.Errorf(backend.CodeDownstreamAuth, "the sign-in did not finish within %s", wait).
				WithHint("run agent-deck service connect again, and finish the sign-in in the browser")
		case <-tick.C:
		}
	}
}

// authWord is a sign-in state for people: the word, with expiry and scopes when connected.
func authWord(st core.OAuthStatus) string {
	parts := []string{string(st.State)}
	if st.ExpiresAt != nil {
		parts = append(parts, "expires "+st.ExpiresAt.Local().Format(time.RFC3339))
	}
	if len(st.Scopes) > 0 {
		parts = append(parts, "scopes "+strings.Join(st.Scopes, " "))
	}
	if st.Error != "" {
		parts = append(parts, st.Error)
	}
	return strings.Join(parts, ", ")
}

// signInPairs is the sign-in line of `service show`, for a remote service that has a sign-in.
func signInPairs(ctx context.Context, cl *client.Client, s backend.ServiceCard) [][2]string {
	if s.Type != backend.ServiceRemote {
		return nil
	}
	st, err := cl.ServiceAuth(ctx, s.ID)
	if err != nil || st.State == backend.OAuthStateNone {
		return nil
	}
	return [][2]string{{"sign-in", authWord(st)}}
}

// withSignInColumn adds each service's sign-in state to the list's rows when any service has
// one; otherwise the rows stay as they are, so a deck without OAuth services lists as before.
func withSignInColumn(ctx context.Context, cl *client.Client, list []backend.ServiceCard, rows [][]string) [][]string {
	words := make([]string, len(list))
	some := false
	for i, s := range list {
		words[i] = "-"
		if s.Type != backend.ServiceRemote {
			continue
		}
		if st, err := cl.ServiceAuth(ctx, s.ID); err == nil && st.State != backend.OAuthStateNone {
			words[i], some = string(st.State), true
		}
	}
	if !some {
		return rows
	}
	for i := range rows {
		rows[i] = append(rows[i], words[i])
	}
	return rows
}
