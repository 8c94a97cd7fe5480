package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/cli/client"
)

func statusCommand() *cli.Command {
	return &cli.Command{
		Name: "status", Usage: "is the server running, where, which database and profile, which sessions",
		Flags: []cli.Flag{jsonFlag}, Action: statusAction,
	}
}

// statusReport is what `status --json` prints.
type statusReport struct {
	Running  bool   `json:"running"`
	URL      string `json:"url"`
	PID      int    `json:"pid,omitempty"`
	Database string `json:"database,omitempty"`
	Profile  string `json:"profile,omitempty"`
	Sessions any    `json:"sessions"`
}

func statusAction(c *cli.Context) error {
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	rep := statusReport{URL: cl.BaseURL, Sessions: []any{}}
	if info, ok := client.ReadServerInfo(global(c, flagHome)); ok && global(c, flagServer) == "" {
		rep.PID = info.PID
	}
	if err := cl.Ready(c.Context); err != nil {
		if c.Bool("json") {
			_ = printJSON(c.App.Writer, rep)
		}
		return fail(err)
	}
	rep.Running = true
	rep.Database, rep.Profile = serverFacts(c, cl)
	sessions, err := cl.ListSessions(c.Context)
	if err != nil {
		return fail(err)
	}
	rep.Sessions = orEmptyList(sessions)
	if c.Bool("json") {
		return printJSON(c.App.Writer, rep)
	}
	pairs := [][2]string{{"server", "running at " + rep.URL}}
	if rep.PID > 0 {
		pairs = append(pairs, [2]string{"pid", fmt.Sprint(rep.PID)})
	}
	pairs = append(pairs, [2]string{"database", orDash(rep.Database)}, [2]string{"profile", orDash(rep.Profile)},
		[2]string{"sessions", fmt.Sprint(len(sessions))})
	if err := keyValues(c.App.Writer, pairs); err != nil {
		return err
	}
	if len(sessions) == 0 {
		return nil
	}
	rows := make([][]string, len(sessions))
	for i, s := range sessions {
		rows[i] = []string{s.Badge, orDash(s.DeckName), orDash(s.WorkspaceRoot), orDash(s.ClientName), s.Profile, stamp(&s.LastSeenAt)}
	}
	fmt.Fprintln(c.App.Writer)
	return printTable(c.App.Writer, []string{"BADGE", "DECK", "WORKSPACE", "CLIENT", "PROFILE", "LAST SEEN"}, rows)
}

// serverFacts asks the server which database and profile it runs with (GET /api/v1/info); a
// local server that does not answer it is described from its server.json. Unknown stays empty,
// never guessed.
func serverFacts(c *cli.Context, cl *client.Client) (database, profile string) {
	if info, err := cl.Info(c.Context); err == nil {
		database, _ = info["database"].(string)
		profile, _ = info["profile"].(string)
		return database, profile
	}
	if global(c, flagServer) != "" {
		return "", ""
	}
	if info, ok := client.ReadServerInfo(global(c, flagHome)); ok {
		return info.Database, info.Profile
	}
	return "", ""
}
