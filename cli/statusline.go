package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/cli/client"
)

// Status line budget: the host waits for one line, so everything (reading stdin, asking the
// server) fits in statuslineBudget, however stdin and the server behave.
const (
	statuslineBudget    = 250 * time.Millisecond
	statuslineStdinWait = 100 * time.Millisecond
	statuslineMaxInput  = 1 << 20
)

// OfflineLine is printed when the server cannot be asked.
const OfflineLine = "◆ Agent Deck offline — start it with `agent-deck serve`"

func statuslineCommand() *cli.Command {
	return &cli.Command{
		Name:   "statusline",
		Usage:  "print the deck line for a status bar (reads Claude Code's status line JSON on stdin); always one line, exit 0",
		Action: statuslineAction,
	}
}

func statuslineAction(c *cli.Context) error {
	start := time.Now()
	ws, ok := readStatusInput(c.App.Reader, statuslineStdinWait)
	line := OfflineLine
	if ok {
		line = displayLine(c, ws, statuslineBudget-time.Since(start))
	}
	fmt.Fprintln(c.App.Writer, oneLine(line))
	return nil
}

// readStatusInput returns the workspace from the host's JSON (workspace.current_dir, then cwd),
// or the current directory when stdin is a terminal, empty or silent. ok is false for malformed
// input.
func readStatusInput(r io.Reader, wait time.Duration) (string, bool) {
	cwd, _ := os.Getwd()
	if r == nil || isTerminal(r) {
		return cwd, true
	}
	type result struct {
		ws  string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		var in struct {
			Cwd       string `json:"cwd"`
			Workspace struct {
				CurrentDir string `json:"current_dir"`
			} `json:"workspace"`
		}
		err := json.NewDecoder(io.LimitReader(r, statuslineMaxInput)).Decode(&in)
		ws := in.Workspace.CurrentDir
		if ws == "" {
			ws = in.Cwd
		}
		ch <- result{ws, err}
	}()
	select {
	case res := <-ch:
		switch {
		case res.err == io.EOF:
			return cwd, true
		case res.err != nil:
			return "", false
		case res.ws == "":
			return cwd, true
		}
		return res.ws, true
	case <-time.After(wait):
		return cwd, true
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
	if err != nil || strings.TrimSpace(d.Line) == "" {
		return OfflineLine
	}
	return d.Line
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
