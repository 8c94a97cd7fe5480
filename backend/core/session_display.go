package core

import (
	"context"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/agent-deck/agent-deck/backend"
)

// UnboundSummary is the display line of a session (or workspace) with no deck.
const UnboundSummary = "◆ Unbound — call bind_workspace with a deck"

// unboundSummaryFor is UnboundSummary in the caller's words: a session on the resource profile
// binds with session action bind.
func unboundSummaryFor(ctx context.Context) string {
	if tool := backend.ToolFor(ctx, "bind_workspace"); tool != "bind_workspace" && tool != "" {
		return "◆ Unbound — call " + tool + " with a deck"
	}
	return UnboundSummary
}

// MaxSummaryChars bounds the display line so it fits a status bar.
const MaxSummaryChars = 120

// DeckCounts is how many cards of each type a deck holds, for its display line.
type DeckCounts struct {
	Services    int `json:"services"`
	Credentials int `json:"credentials"`
	Playbooks   int `json:"playbooks"`
}

// DisplaySummary renders the one-line deck summary agents repeat to the user and the status line
// shows: `◆ <deck> · <n> MCP · <n> key(s) · <n> playbook(s) · ⌘<badge>`, at most
// MaxSummaryChars characters, the deck name cut with … when it is too long.
func DisplaySummary(deckName string, c DeckCounts, badge string) string {
	mark := ""
	if badge != "" {
		mark = " · ⌘" + badge
	}
	return summaryLine(deckName, c, mark)
}

// PinnedSummary is the status line of a folder pinned to a deck with `agent-deck use` in which
// no session is bound yet: the deck's line, saying so where the badge would be.
func PinnedSummary(deckName string, c DeckCounts) string {
	return summaryLine(deckName, c, " · pinned, no session bound yet")
}

// summaryLine is the display line with mark at its end, the deck name cut to fit.
func summaryLine(deckName string, c DeckCounts, mark string) string {
	tail := fmt.Sprintf(" · %d MCP · %d %s · %d %s", c.Services,
		c.Credentials, displayPlural(c.Credentials, "key", "keys"),
		c.Playbooks, displayPlural(c.Playbooks, "playbook", "playbooks")) + mark
	const head = "◆ "
	room := MaxSummaryChars - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail)
	return head + cutRunes(displayOneLine(deckName), room) + tail
}

func displayPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// cutRunes shortens s to at most n characters, ending with … when it was cut.
func cutRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}

// oneLine collapses whitespace so a name can never break the line.
func displayOneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// countLinks tallies a deck's links by card type.
func countLinks(links []backend.CardLink) DeckCounts {
	var c DeckCounts
	for _, l := range links {
		switch l.CardType {
		case backend.CardService:
			c.Services++
		case backend.CardCredential:
			c.Credentials++
		case backend.CardPlaybook:
			c.Playbooks++
		}
	}
	return c
}

// normWorkspace makes workspace paths comparable: forward slashes, no trailing slash, cleaned.
// Paths are the client's, not this machine's, so Windows paths are handled as text.
func normWorkspace(p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	p = strings.ReplaceAll(p, `\`, "/")
	p = path.Clean(p)
	if len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	return p
}

// workspaceDepth reports whether root is p or an ancestor of p, and how deep root is (longer
// roots are nearer ancestors). ok is false when root does not contain p.
func workspaceDepth(root, p string) (depth int, ok bool) {
	if root == "" || p == "" {
		return 0, false
	}
	same := root == p || strings.EqualFold(root, p) && looksWindows(root)
	if same {
		return len(root), true
	}
	prefix := root
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	if strings.HasPrefix(p, prefix) || looksWindows(root) && strings.HasPrefix(strings.ToLower(p), strings.ToLower(prefix)) {
		return len(root), true
	}
	return 0, false
}

// looksWindows reports a drive-letter path, whose comparison ignores case.
func looksWindows(p string) bool {
	return len(p) >= 2 && p[1] == ':' && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z')
}
