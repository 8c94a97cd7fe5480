package core

import (
	"context"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// BindWorkspace binds a session to a workspace folder and a deck (id or exact name). Binding is
// per session: two sessions in one folder may use different decks.
func (s *Hub) BindWorkspace(ctx context.Context, sessionID string, in BindInput) (Binding, error) {
	if _, err := backend.RequireRead(ctx, "bind a session"); err != nil {
		return Binding{}, err
	}
	ws, err := cleanWorkspace(in.WorkspaceRoot, false)
	if err != nil {
		return Binding{}, err
	}
	return s.rebind(ctx, sessionID, &ws, in.Deck)
}

// SwitchBoundDeck moves a session to another deck, keeping its workspace.
func (s *Hub) SwitchBoundDeck(ctx context.Context, sessionID, deck string) (Binding, error) {
	if _, err := backend.RequireRead(ctx, "switch a session's deck"); err != nil {
		return Binding{}, err
	}
	return s.rebind(ctx, sessionID, nil, deck)
}

// rebind stores a session's new deck (and workspace, when given) and returns the binding.
func (s *Hub) rebind(ctx context.Context, sessionID string, ws *string, deckRef string) (Binding, error) {
	sess, err := s.sessionFor(ctx, sessionID)
	if err != nil {
		return Binding{}, err
	}
	if strings.TrimSpace(deckRef) == "" {
		return Binding{}, s.deckRequired(ctx)
	}
	d, err := s.deckByRef(ctx, s.store, deckRef)
	if err != nil {
		return Binding{}, err
	}
	if ws != nil {
		sess.WorkspaceRoot = *ws
	}
	sess.DeckID, sess.DeckName = d.ID, d.Name
	sess.LastSeenAt = s.clock()
	if err := s.store.UpdateSessionBinding(ctx, &sess); err != nil {
		return Binding{}, backend.StoreErr("binding a session", err)
	}
	return s.binding(ctx, sess)
}

// SessionBinding says where a session stands: workspace, deck, badge and display line.
func (s *Hub) SessionBinding(ctx context.Context, sessionID string) (Binding, error) {
	if _, err := backend.RequireRead(ctx, "read a session's binding"); err != nil {
		return Binding{}, err
	}
	sess, err := s.sessionFor(ctx, sessionID)
	if err != nil {
		return Binding{}, err
	}
	return s.binding(ctx, sess)
}

// binding renders a session's binding; a deck deleted since binding reads as unbound.
func (s *Hub) binding(ctx context.Context, sess backend.MCPSession) (Binding, error) {
	b := Binding{SessionID: sess.ID, WorkspaceRoot: sess.WorkspaceRoot, Badge: sess.Badge,
		Profile: sess.Profile, DisplaySummary: unboundSummaryFor(ctx)}
	if sess.DeckID == "" {
		return b, nil
	}
	d, counts, err := s.deckCounts(ctx, sess.DeckID)
	if backend.IsNotFound(err) {
		return b, nil
	}
	if err != nil {
		return Binding{}, err
	}
	b.DeckID, b.DeckName, b.Bound = d.ID, d.Name, true
	b.DisplaySummary = DisplaySummary(d.Name, counts, sess.Badge)
	b.ProjectedTools = s.projectionNote(ctx, sess)
	return b, nil
}

// BoundDeck is get_bound_deck: a page of the bound deck (services without secrets or local env,
// credential metadata, playbook summaries) within the budget whatever the deck's size, and the
// display line. Counts and the display line always cover the whole deck.
func (s *Hub) BoundDeck(ctx context.Context, sessionID string, in DeckPageInput) (BoundDeck, error) {
	if _, err := backend.RequireRead(ctx, "read the bound deck"); err != nil {
		return BoundDeck{}, err
	}
	sess, err := s.boundSession(ctx, sessionID)
	if err != nil {
		return BoundDeck{}, err
	}
	d, err := s.deckByRefCached(ctx, sess.DeckID)
	if backend.IsNotFound(err) {
		return BoundDeck{}, s.notBound(ctx, "the deck this session was bound to no longer exists")
	}
	if err != nil {
		return BoundDeck{}, err
	}
	if in.Budget <= 0 {
		in.Budget = DefaultDeckBudget
	}
	v, err := s.deckViews(ctx, d)
	if err != nil {
		return BoundDeck{}, err
	}
	summary := DisplaySummary(d.Name, DeckCounts{Services: len(v.records), Credentials: len(v.credentials),
		Playbooks: len(v.playbooks)}, sess.Badge)
	reserved := estimateJSON(struct {
		Badge   string `json:"badge"`
		Summary string `json:"display_summary"`
	}{sess.Badge, summary})
	page, err := s.cachedDeckPage(ctx, d, v, in, reserved)
	if err != nil {
		return BoundDeck{}, err
	}
	return BoundDeck{DeckPage: page.page, Badge: sess.Badge, DisplaySummary: summary, pageJSON: page.json,
		pageQuoted: page.quoted}, nil
}

// boundSession returns the caller's session, NOT_BOUND when it has no deck.
func (s *Hub) boundSession(ctx context.Context, sessionID string) (backend.MCPSession, error) {
	sess, err := s.sessionFor(ctx, sessionID)
	if err != nil {
		return backend.MCPSession{}, err
	}
	if sess.DeckID == "" {
		return backend.MCPSession{}, s.notBound(ctx, "this session is not bound to a deck")
	}
	if _, member := backend.Member(ctx); member {
		// The deck may have been unshared since the session bound it.
		if _, err := s.deckByRefCached(ctx, sess.DeckID); backend.IsNotFound(err) {
			return backend.MCPSession{}, s.notBound(ctx, "the deck this session was bound to is not shared with you (any more)")
		} else if err != nil {
			return backend.MCPSession{}, err
		}
	}
	return sess, nil
}

// notBound teaches the way out: bind, naming the decks there are.
func (s *Hub) notBound(ctx context.Context, msg string) error {
	names, err := s.deckNames(ctx)
	if err != nil {
		return err
	}
	e := backend.Errorf(backend.CodeNotBound, "%s", msg)
	bind := bindCall(ctx)
	if len(names) == 0 {
		return e.WithHint("no decks exist yet: " + createDeckStep(ctx) + ", then " + bind + " with its name")
	}
	return e.WithHint(bind+", one of: "+backend.KnownList(names)).
		WithDetail("decks", backend.CapList(names))
}

// bindCall is how the caller binds a session, naming the deck argument last.
func bindCall(ctx context.Context) string {
	tool := backend.ToolFor(ctx, "bind_workspace")
	if tool == "bind_workspace" {
		return "call bind_workspace with workspaceRoot and deckId"
	}
	return "call " + tool + " with fields.workspaceRoot and id"
}

// createDeckStep is how the caller gets a deck made: create_deck where its profile and scope
// have it, else a person does.
func createDeckStep(ctx context.Context) string {
	if tool := backend.ToolFor(ctx, "create_deck"); tool != "" {
		return "call " + tool
	}
	return "ask the person who runs Agent Deck to create one (agent-deck deck create NAME)"
}

// deckRequired is the error for a bind without a deck; it lists the decks.
func (s *Hub) deckRequired(ctx context.Context) error {
	names, err := s.deckNames(ctx)
	if err != nil {
		return err
	}
	return backend.Invalid("deckId", "is required: a deck id or exact name; decks: %s", backend.KnownList(names)).
		WithHint("pass one of the deck names, or to make a new one, "+createDeckStep(ctx)).
		WithDetail("decks", backend.CapList(names))
}

func (s *Hub) deckNames(ctx context.Context) ([]string, error) {
	decks, err := s.store.ListDecks(ctx)
	if err != nil {
		return nil, backend.StoreErr("listing decks", err)
	}
	names := make([]string, len(decks))
	for i, d := range decks {
		names[i] = d.Name
	}
	return names, nil
}
