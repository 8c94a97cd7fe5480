package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/cli/client"
)

// Status line budget: the host waits for one line, so everything (reading stdin, asking the
// server) fits in statuslineBudget, however stdin and the server behave.
const (
	statuslineBudget    = 250 * time.Millisecond
	statuslineStdinWait = 100 * time.Millisecond
	statuslineMaxInput  = 1 << 20
)

// Lines printed instead of the deck line. OfflineLine means nothing answered at the server's
// address; TokenRefusedLine that the server answered but refused the token.
const (
	OfflineLine      = "◆ Agent Deck offline — start it with `agent-deck serve`"
	TokenRefusedLine = "◆ Agent Deck token refused — run agent-deck setup again"
)

func statuslineCommand() *cli.Command {
	return &cli.Command{
		Name:   "statusline",
		Usage:  "print the deck line for a status bar (reads Claude Code's status line JSON on stdin); always one line, exit 0",
		Action: statuslineAction,
	}
}

func statuslineAction(c *cli.Context) error {
	start := time.Now()
	ws := readStatusInput(c.App.Reader, statuslineStdinWait)
	line := displayLine(c, ws, statuslineBudget-time.Since(start))
	fmt.Fprintln(c.App.Writer, oneLine(line))
	refreshStubs(c, ws, statuslineBudget-time.Since(start))
	return nil
}

// readStatusInput returns the workspace from the host's JSON (workspace.current_dir, then cwd),
// or the current directory when stdin is a terminal, empty, silent or not the JSON expected:
// the line is about this process's directory then, never a claim that the server is down.
func readStatusInput(r io.Reader, wait time.Duration) string {
	cwd, _ := os.Getwd()
	if r == nil || isTerminal(r) {
		return cwd
	}
	ch := make(chan string, 1)
	go func() {
		var in any
		if json.NewDecoder(io.LimitReader(r, statuslineMaxInput)).Decode(&in) != nil {
			ch <- ""
			return
		}
		obj, _ := in.(map[string]any)
		ws, _ := obj["workspace"].(map[string]any)
		dir, _ := ws["current_dir"].(string)
		if dir == "" {
			dir, _ = obj["cwd"].(string)
		}
		ch <- dir
	}()
	select {
	case dir := <-ch:
		if dir == "" {
			return cwd
		}
		return dir
	case <-time.After(wait):
		return cwd
	}
}

// displayLine asks the server for the workspace's line within the remaining budget.
func displayLine(c *cli.Context, workspace string, budget time.Duration) string {
	if budget <= 0 {
		return OfflineLine
	}
	cl, err := client.New(client.Options{Home: global(c, flagHome), Server: global(c, flagServer),
		Token: global(c, flagToken), Timeout: budget})
	if err != nil {
		return OfflineLine
	}
	ctx, cancel := context.WithTimeout(c.Context, budget)
	defer cancel()
	d, err := cl.Display(ctx, workspace)
	if err != nil {
		return statuslineError(err)
	}
	if strings.TrimSpace(d.Line) == "" {
		return "◆ Agent Deck"
	}
	return d.Line
}

// statuslineError is the line for a server that did not give one: offline only when nothing
// answered, else what the server said, in a few words.
func statuslineError(err error) string {
	var se *client.StatusError
	if !errors.As(err, &se) {
		return OfflineLine
	}
	switch se.Err.Code {
	case backend.CodeUnauthenticated, backend.CodeForbidden:
		return TokenRefusedLine
	}
	return "◆ Agent Deck: " + clipCell(se.Err.Message, 80)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
