package postgres_test

import (
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

func newSession(id, badge string, seen time.Time) *backend.MCPSession {
	return &backend.MCPSession{ID: id, Badge: badge, Profile: "standard", Scope: backend.ScopeAgent,
		ClientName: "claude-code", CreatedAt: seen, LastSeenAt: seen}
}

func TestSessions(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	deck := newDeck(t, st, "Work")
	now := time.Now().Truncate(time.Microsecond)

	a := newSession("sess-a", "otter", now)
	a.DeckID, a.WorkspaceRoot = deck.ID, "/src/app"
	mustOK(t, st.CreateSession(ctx, a))
	if a.DeckName != "Work" {
		t.Fatalf("DeckName = %q", a.DeckName)
	}
	old := newSession("sess-old", "heron", now.Add(-48*time.Hour))
	mustOK(t, st.CreateSession(ctx, old))

	wantCode(t, st.CreateSession(ctx, newSession("sess-b", "otter", now)), backend.CodeConflict, "badge")
	wantCode(t, st.CreateSession(ctx, newSession("sess-a", "lynx", now)), backend.CodeConflict, "id")
	bad := newSession("sess-c", "lynx", now)
	bad.Profile = "everything"
	wantCode(t, st.CreateSession(ctx, bad), backend.CodeInvalidArgument, "profile")
	unknownDeck := newSession("sess-d", "lynx", now)
	unknownDeck.DeckID = "00000000-0000-0000-0000-000000000000"
	wantCode(t, st.CreateSession(ctx, unknownDeck), backend.CodeNotFound, "deck_id")

	got, err := st.GetSession(ctx, "sess-a")
	mustOK(t, err)
	if got.DeckID != deck.ID || got.DeckName != "Work" || got.WorkspaceRoot != "/src/app" || got.Badge != "otter" {
		t.Fatalf("GetSession = %+v", got)
	}

	got.DeckID, got.WorkspaceRoot = "", "/elsewhere"
	mustOK(t, st.UpdateSessionBinding(ctx, &got))
	got, err = st.GetSession(ctx, "sess-a")
	mustOK(t, err)
	if got.DeckID != "" || got.DeckName != "" || got.WorkspaceRoot != "/elsewhere" {
		t.Fatalf("after unbind: %+v", got)
	}

	mustOK(t, st.TouchSession(ctx, "sess-a", now.Add(time.Minute)))
	live, err := st.ListLiveSessions(ctx, now.Add(-time.Hour))
	mustOK(t, err)
	if len(live) != 1 || live[0].ID != "sess-a" || !live[0].LastSeenAt.Equal(now.Add(time.Minute)) {
		t.Fatalf("ListLiveSessions = %+v", live)
	}

	n, err := st.ExpireSessions(ctx, now.Add(-24*time.Hour))
	mustOK(t, err)
	if n != 1 {
		t.Fatalf("expired %d sessions, want 1", n)
	}
	_, err = st.GetSession(ctx, "sess-old")
	wantCode(t, err, backend.CodeNotFound, "")
	// The expired session's badge is free again.
	mustOK(t, st.CreateSession(ctx, newSession("sess-e", "heron", now)))

	mustOK(t, st.TerminateSession(ctx, "sess-a", now))
	_, err = st.GetSession(ctx, "sess-a")
	wantCode(t, err, backend.CodeNotFound, "")
	wantCode(t, st.TouchSession(ctx, "sess-a", now), backend.CodeNotFound, "")
	wantCode(t, st.TerminateSession(ctx, "sess-none", now), backend.CodeNotFound, "")
}

func TestDeletingDeckUnbindsSessions(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	deck := newDeck(t, st, "Work")
	s := newSession("sess", "otter", time.Now())
	s.DeckID = deck.ID
	mustOK(t, st.CreateSession(ctx, s))
	mustOK(t, st.DeleteDeck(ctx, deck.ID))
	got, err := st.GetSession(ctx, "sess")
	mustOK(t, err)
	if got.DeckID != "" {
		t.Fatalf("session still bound to a deleted deck: %+v", got)
	}
}
