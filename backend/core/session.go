package core

import (
	"context"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/agent-deck/agent-deck/backend"
)

// Binding is a session's view of where it stands.
type Binding struct {
	SessionID      string `json:"session_id"`
	WorkspaceRoot  string `json:"workspace_root,omitempty"`
	DeckID         string `json:"deck_id,omitempty"`
	DeckName       string `json:"deck_name,omitempty"`
	Badge          string `json:"badge"`
	Profile        string `json:"profile"`
	Bound          bool   `json:"bound"`
	DisplaySummary string `json:"display_summary"`
	// ProjectedTools says how many of the deck's tools are tools of this session's own (when the
	// deck projects them), and whether a cap stopped the list.
	ProjectedTools *ProjectionStatus `json:"projected_tools,omitempty"`
}

// BoundDeck is get_bound_deck's answer: a page of the deck within the budget, and the deck's
// one-line display summary.
type BoundDeck struct {
	DeckPage
	Badge          string `json:"badge"`
	DisplaySummary string `json:"display_summary"`
	pageJSON       []byte // DeckPage as JSON, rendered once per deck version (cache_pages.go)
	pageQuoted     []byte // pageJSON without its "}", escaped as the body of a JSON string
}

// OpenSessionInput starts an MCP session; Deck (id or name) and WorkspaceRoot pre-bind it.
type OpenSessionInput struct {
	ID            string `json:"id"`
	ClientName    string `json:"client_name,omitempty"`
	Profile       string `json:"profile"`
	Deck          string `json:"deck,omitempty"`
	WorkspaceRoot string `json:"workspace_root,omitempty"`
	// Caps is what the client declared at initialize that a downstream may use.
	Caps backend.ClientCaps `json:"-"`
}

// BindInput binds a session to a workspace and a deck.
type BindInput struct {
	WorkspaceRoot string `json:"workspace_root"`
	Deck          string `json:"deck"`
}

// DisplayLine is the status line for a workspace.
type DisplayLine struct {
	Line      string `json:"line"`
	Workspace string `json:"workspace,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	DeckID    string `json:"deck_id,omitempty"`
	Badge     string `json:"badge,omitempty"`
	Bound     bool   `json:"bound"`
}

// maxWorkspaceChars bounds a workspace path.
const maxWorkspaceChars = 4096

// OpenSession records a new MCP session with a badge unique among live sessions, at a cost that
// does not grow with the number of live sessions. A token holding MaxSessionsPerToken live
// sessions loses its least recently seen one, which then answers like any ended session. A deck given
// by the caller (the x-agent-deck-deck-id header) must exist; the configured default deck
// (AGENT_DECK_DECK_ID) pre-binds when it exists and is skipped with a warning when it does not,
// so a deleted default never locks agents out.
func (s *Hub) OpenSession(ctx context.Context, in OpenSessionInput) (backend.MCPSession, error) {
	a, err := backend.RequireRead(ctx, "open an MCP session")
	if err != nil {
		return backend.MCPSession{}, err
	}
	sess, err := s.newSession(ctx, a, in)
	if err != nil {
		return backend.MCPSession{}, err
	}
	// Idle expiry is housekeeping: a concurrent change getting in its way is left to the next open.
	if err := s.expireIdle(ctx); err != nil && backend.ErrorCode(err) != backend.CodeConflict {
		return backend.MCPSession{}, err
	}
	s.pruneFetches(ctx)
	for attempt := 0; ; attempt++ {
		expired, err := s.store.OpenSession(ctx, &sess, shuffledBadgePool(), s.cfg.MaxSessionsPerToken)
		if err == nil {
			if len(expired) > 0 {
				s.log.Info("session cap reached; least recently used sessions expired",
					"token_id", sess.TokenID, "expired", len(expired), "cap", s.cfg.MaxSessionsPerToken)
				for _, id := range expired {
					s.ends.ended(id)
				}
			}
			return sess, nil
		}
		// Two sessions opened at once may draw the same badge; draw again.
		if backend.ErrorCode(err) != backend.CodeConflict || attempt >= 8 {
			return backend.MCPSession{}, backend.StoreErr("opening a session", err)
		}
	}
}

// newSession builds the row of a session about to open, resolving its pre-bound deck.
func (s *Hub) newSession(ctx context.Context, a backend.Actor, in OpenSessionInput) (backend.MCPSession, error) {
	id := strings.TrimSpace(in.ID)
	if id == "" {
		var err error
		if id, err = backend.NewUUID(); err != nil {
			return backend.MCPSession{}, err
		}
	}
	if !backend.IsUUIDText(id) {
		return backend.MCPSession{}, backend.Invalid("id", "a session id is a UUID")
	}
	profile := strings.TrimSpace(in.Profile)
	if profile == "" {
		profile = backend.DefaultProfile
	}
	if !backend.IsProfile(profile) {
		return backend.MCPSession{}, backend.InvalidEnum("profile", profile, backend.Profiles)
	}
	ws, err := cleanWorkspace(in.WorkspaceRoot, true)
	if err != nil {
		return backend.MCPSession{}, err
	}
	if ws == "" {
		ws = normWorkspace(s.cfg.DefaultWorkspace)
	}
	now := s.clock()
	sess := backend.MCPSession{ID: id, WorkspaceRoot: ws, ClientName: backend.Clip(printableLine(in.ClientName), 100),
		Profile: profile, Scope: a.Scope, TokenID: a.TokenID, CreatedAt: now, LastSeenAt: now, Caps: in.Caps}
	d, err := s.preBoundDeck(ctx, in.Deck, a.DeckID)
	sess.DeckID, sess.DeckName = d.ID, d.Name
	return sess, err
}

// preBoundDeck resolves the deck a new session starts on: the one the client asked for, else
// the configured default; none when neither is set or the default no longer exists.
func (s *Hub) preBoundDeck(ctx context.Context, asked, tokenDeck string) (backend.Deck, error) {
	ref, fromDefault := strings.TrimSpace(asked), false
	if ref == "" && tokenDeck != "" {
		// The deck chosen when the token was granted (OAuth consent); one deleted since is skipped.
		d, err := s.deckByRef(ctx, s.store, tokenDeck)
		if !backend.IsNotFound(err) {
			return d, err
		}
	}
	if ref == "" {
		ref, fromDefault = strings.TrimSpace(s.cfg.DefaultDeck), true
	}
	if ref == "" {
		return backend.Deck{}, nil
	}
	d, err := s.deckByRef(ctx, s.store, ref)
	if fromDefault && backend.IsNotFound(err) {
		s.log.Warn("default deck not found; sessions start unbound", "deck", backend.Clip(ref, 100))
		return backend.Deck{}, nil
	}
	return d, err
}

// printableLine keeps a client-supplied label to one line of printable text.
func printableLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	return displayOneLine(s)
}

// ListSessions returns live sessions and their bindings, most recently seen first.
// An admin also sees which token opened each one.
func (s *Hub) ListSessions(ctx context.Context) ([]backend.MCPSession, error) {
	a, err := backend.RequireRead(ctx, "list sessions")
	if err != nil {
		return nil, err
	}
	live, err := s.liveSessions(ctx)
	if err != nil {
		return nil, err
	}
	if a.IsAdmin() && len(live) > 0 {
		if err := s.nameSessionTokens(ctx, live); err != nil {
			return nil, err
		}
	}
	return backend.OrEmpty(live), nil
}

// nameSessionTokens fills in the token each session was opened with.
func (s *Hub) nameSessionTokens(ctx context.Context, live []backend.MCPSession) error {
	tokens, err := s.store.ListTokens(ctx)
	if err != nil {
		return backend.StoreErr("listing tokens", err)
	}
	byID := make(map[string]backend.Token, len(tokens))
	for _, t := range tokens {
		byID[t.ID] = t
	}
	for i := range live {
		if t, ok := byID[live[i].TokenID]; ok {
			live[i].Token = &backend.SessionToken{ID: t.ID, Name: t.Name, Kind: t.Kind}
		}
	}
	return nil
}

// liveSessions lists sessions seen within the idle timeout, newest first, with deck names: a
// member's own sessions only.
func (s *Hub) liveSessions(ctx context.Context) ([]backend.MCPSession, error) {
	live, err := s.store.ListLiveSessions(ctx, s.clock().Add(-s.cfg.SessionIdleTimeout))
	if err != nil {
		return nil, backend.StoreErr("listing sessions", err)
	}
	if m, ok := backend.Member(ctx); ok {
		live = slices.DeleteFunc(live, func(x backend.MCPSession) bool { return x.PersonID != m.PersonID })
	}
	sort.SliceStable(live, func(i, j int) bool { return live[i].LastSeenAt.After(live[j].LastSeenAt) })
	missing := false
	for _, x := range live {
		missing = missing || x.DeckID != "" && x.DeckName == ""
	}
	if !missing {
		return live, nil
	}
	decks, err := s.store.ListDecks(ctx)
	if err != nil {
		return nil, backend.StoreErr("listing decks", err)
	}
	names := make(map[string]string, len(decks))
	for _, d := range decks {
		names[d.ID] = d.Name
	}
	for i := range live {
		if live[i].DeckID != "" && live[i].DeckName == "" {
			live[i].DeckName = names[live[i].DeckID]
		}
	}
	return live, nil
}

// Display returns the status line for the nearest bound ancestor of workspace: the deck of the
// live session whose workspace root is the longest prefix of the path (the most recently seen
// one when several share it), or the unbound line when none is.
func (s *Hub) Display(ctx context.Context, workspace string) (DisplayLine, error) {
	if _, err := backend.RequireRead(ctx, "read the display line"); err != nil {
		return DisplayLine{}, err
	}
	ws, err := cleanWorkspace(workspace, false)
	if err != nil {
		return DisplayLine{}, err
	}
	live, err := s.liveSessions(ctx)
	if err != nil {
		return DisplayLine{}, err
	}
	best, bestDepth := -1, -1
	for i, x := range live {
		if x.DeckID == "" {
			continue
		}
		if depth, ok := workspaceDepth(x.WorkspaceRoot, ws); ok && depth > bestDepth {
			best, bestDepth = i, depth
		}
	}
	if best < 0 {
		return DisplayLine{Line: UnboundSummary, Workspace: ws}, nil
	}
	x := live[best]
	d, counts, err := s.deckCounts(ctx, x.DeckID)
	if backend.IsNotFound(err) {
		return DisplayLine{Line: UnboundSummary, Workspace: ws}, nil
	}
	if err != nil {
		return DisplayLine{}, err
	}
	return DisplayLine{Line: DisplaySummary(d.Name, counts, x.Badge), Workspace: x.WorkspaceRoot,
		SessionID: x.ID, DeckID: d.ID, Badge: x.Badge, Bound: true}, nil
}

// deckCounts finds a deck by id and counts its cards by type.
func (s *Hub) deckCounts(ctx context.Context, deckID string) (backend.Deck, DeckCounts, error) {
	d, err := s.store.GetDeck(ctx, deckID)
	if err != nil {
		return backend.Deck{}, DeckCounts{}, backend.StoreErr("finding a deck", err)
	}
	links, err := s.store.ListLinks(ctx, deckID)
	if err != nil {
		return backend.Deck{}, DeckCounts{}, backend.StoreErr("listing deck cards", err)
	}
	return d, countLinks(links), nil
}

// cleanWorkspace validates and normalizes a workspace path; empty is allowed when optional.
func cleanWorkspace(p string, optional bool) (string, error) {
	if strings.TrimSpace(p) == "" {
		if optional {
			return "", nil
		}
		return "", backend.Invalid("workspaceRoot", "is required: the absolute path of the project folder")
	}
	if _, err := backend.CleanText("workspaceRoot", p, maxWorkspaceChars, false); err != nil {
		return "", err
	}
	ws := normWorkspace(p)
	if !absWorkspace(ws) {
		// A relative path means nothing to a server with its own working directory, and would
		// match other projects' folders by accident.
		return "", backend.Invalid("workspaceRoot", "%q is not an absolute path", backend.Clip(p, 200)).
			WithHint("pass the project folder's absolute path, e.g. /home/me/project or C:/Users/me/project")
	}
	return ws, nil
}

// absWorkspace reports whether a normalized workspace path is absolute: /…, a drive letter
// (C:/…) or a UNC share (//server/…).
func absWorkspace(p string) bool {
	if strings.HasPrefix(p, "/") {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && p[2] == '/' &&
		(p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z')
}
