package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
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
// NotUnderstoodLine means stdin held something other than the host's status line JSON.
const (
	OfflineLine       = "◆ Agent Deck offline — start it with `agent-deck serve`"
	TokenRefusedLine  = "◆ Agent Deck token refused — run agent-deck setup again"
	NotUnderstoodLine = "◆ Agent Deck: status line input not understood (expected JSON with workspace.current_dir or cwd)"
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
	ws, ok := readStatusInput(c.App.Reader, statuslineStdinWait)
	if !ok {
		fmt.Fprintln(c.App.Writer, NotUnderstoodLine)
		return nil
	}
	line, pinned := displayLine(c, ws, statuslineBudget-time.Since(start))
	fmt.Fprintln(c.App.Writer, oneLine(line))
	refreshStubs(c, ws, statuslineBudget-time.Since(start), pinned)
	return nil
}

// readStatusInput returns the workspace from the host's JSON (workspace.current_dir, then cwd),
// or the current directory when stdin is a terminal, empty or silent: the line is about this
// process's directory then, never a claim that the server is down. understood is false when
// stdin held something else (not JSON, or JSON without a directory string).
func readStatusInput(r io.Reader, wait time.Duration) (dir string, understood bool) {
	cwd, _ := os.Getwd()
	if r == nil || isTerminal(r) {
		return cwd, true
	}
	type input struct {
		dir string
		ok  bool
	}
	ch := make(chan input, 1)
	go func() {
		var in any
		err := json.NewDecoder(io.LimitReader(r, statuslineMaxInput)).Decode(&in)
		if errors.Is(err, io.EOF) {
			ch <- input{"", true} // nothing at all: run by hand with stdin closed
			return
		}
		obj, _ := in.(map[string]any)
		ws, _ := obj["workspace"].(map[string]any)
		dir, _ := ws["current_dir"].(string)
		if dir == "" {
			dir, _ = obj["cwd"].(string)
		}
		ch <- input{dir, err == nil && dir != ""}
	}()
	select {
	case in := <-ch:
		if in.dir == "" {
			return cwd, in.ok
		}
		return in.dir, in.ok
	case <-time.After(wait):
		return cwd, true
	}
}

// displayLine asks the server for the workspace's line within the remaining budget. A folder
// pinned with `agent-deck use` that no session is bound in yet shows its pinned deck, marked as
// such; pinned is that deck, for the playbook stubs.
func displayLine(c *cli.Context, workspace string, budget time.Duration) (line string, pinned *core.DeckSnapshot) {
	if budget <= 0 {
		return OfflineLine, nil
	}
	cl, err := client.New(client.Options{Home: global(c, flagHome), Server: global(c, flagServer),
		Token: global(c, flagToken), Timeout: budget})
	if err != nil {
		return OfflineLine, nil
	}
	ctx, cancel := context.WithTimeout(c.Context, budget)
	defer cancel()
	d, err := cl.Display(ctx, workspace)
	if err != nil {
		return statuslineError(err), nil
	}
	if !d.Bound {
		if deck, ok := pinnedDeck(ctx, cl, workspace); ok {
			counts := core.DeckCounts{Services: len(deck.Services), Credentials: len(deck.Credentials),
				Playbooks: len(deck.Playbooks)}
			return core.PinnedSummary(deck.Name, counts), &deck
		}
	}
	if strings.TrimSpace(d.Line) == "" {
		return "◆ Agent Deck", nil
	}
	return d.Line, nil
}

// pinnedDeck is the deck the nearest `agent-deck use` pin at or above workspace names, if the
// server has it.
func pinnedDeck(ctx context.Context, cl *client.Client, workspace string) (core.DeckSnapshot, bool) {
	root := pinnedRoot(workspace)
	if root == "" {
		return core.DeckSnapshot{}, false
	}
	pin, err := readUseFile(filepath.Join(root, useFilePath))
	if err != nil {
		return core.DeckSnapshot{}, false
	}
	deck, err := cl.GetDeck(ctx, pin.DeckName)
	return deck, err == nil
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
