package cli

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

func callsCommand() *cli.Command {
	return &cli.Command{
		Name: "calls", Usage: "the tool-call audit trail: who called which downstream tool, how it ended (admin)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "person", Usage: "only calls of this person's tokens (name or id)"},
			&cli.StringFlag{Name: "service", Usage: "only calls of this service (id or name)"},
			&cli.StringFlag{Name: "deck", Usage: "only calls through this deck (id or name)"},
			&cli.StringFlag{Name: "session", Usage: "only calls of this MCP session: its id, or its start as the list shows it"},
			&cli.StringFlag{Name: "tool", Usage: "only calls of this tool"},
			&cli.StringFlag{Name: "outcome", Usage: "only ok, is_error or error"},
			&cli.StringFlag{Name: "since", Usage: "only calls since a duration ago (1h) or an RFC 3339 time"},
			&cli.StringFlag{Name: "until", Usage: "only calls before a duration ago or an RFC 3339 time"},
			&cli.IntFlag{Name: "limit", Value: 50, Usage: "at most this many calls, newest first (1 to 1000)"},
			&cli.StringFlag{Name: "cursor", Usage: "continue after a previous page (its next_cursor)"},
			jsonFlag,
		},
		Subcommands: []*cli.Command{{
			Name: "capture", Usage: "keep (redacted) arguments of calls made through a deck, or stop keeping them",
			ArgsUsage: "DECK on|off", Flags: []cli.Flag{jsonFlag}, Action: callsCapture,
		}},
		Action: callsList,
	}
}

func callsList(c *cli.Context) error {
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	q := url.Values{}
	for _, name := range []string{"person", "service", "deck", "session", "tool", "outcome", "since", "until", "cursor"} {
		if v := c.String(name); v != "" {
			q.Set(name, v)
		}
	}
	q.Set("limit", strconv.Itoa(c.Int("limit")))
	var page backend.ToolCallPage
	if err := cl.Do(c.Context, http.MethodGet, "/tool-calls", q, nil, &page); err != nil {
		return fail(err)
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, page)
	}
	rows := make([][]string, len(page.Calls))
	for i, tc := range page.Calls {
		outcome := string(tc.Outcome)
		if tc.ErrorCode != "" {
			outcome += " " + string(tc.ErrorCode)
		}
		rows[i] = []string{tc.At.Local().Format(time.DateTime), orDash(tc.Person), tc.TokenName, shortSession(tc.SessionID, tc.ClientName),
			tc.DeckName, tc.ServiceName, tc.Tool, fmt.Sprintf("%.1fms", tc.DurationMS), outcome, strconv.Itoa(tc.ResultBytes)}
	}
	if err := printTable(c.App.Writer, []string{"TIME", "PERSON", "TOKEN", "SESSION", "DECK", "SERVICE", "TOOL", "DURATION", "OUTCOME", "BYTES"}, rows); err != nil {
		return err
	}
	if page.NextCursor != "" {
		fmt.Fprintf(c.App.ErrWriter, "More: agent-deck calls --cursor %s\n", page.NextCursor)
	}
	return nil
}

// shortSession shows the first block of a session id and the client that opened it.
func shortSession(id, client string) string {
	if id == "" {
		return "rest"
	}
	if len(id) > 8 {
		id = id[:8]
	}
	if client != "" {
		return id + " (" + client + ")"
	}
	return id
}

func callsCapture(c *cli.Context) error {
	args, err := positional(c)
	if err != nil {
		return err
	}
	if len(args) != 2 || (args[1] != "on" && args[1] != "off") {
		return userError("usage: agent-deck calls capture DECK on|off")
	}
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	var out core.DeckAuditSettings
	in := core.DeckArgumentCaptureInput{CaptureArguments: args[1] == "on"}
	if err := cl.Do(c.Context, http.MethodPut, "/decks/"+url.PathEscape(args[0])+"/audit", nil, in, &out); err != nil {
		return fail(err)
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, out)
	}
	state := "off"
	if out.CaptureArguments {
		state = "on (arguments are stored redacted)"
	}
	_, err = fmt.Fprintf(c.App.Writer, "Argument capture for deck %s: %s\n", out.DeckName, state)
	return err
}
