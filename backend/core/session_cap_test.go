package core_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// TestSessionBadgesByLevel: badges are plain pool words while the pool lasts, then word+2, then
// word+3, and a freed plain word is given again before any suffixed one.
func TestSessionBadgesByLevel(t *testing.T) {
	svc := core.NewHub(pgtest.NewStore(t), nil, newTestSealer(t), nil, nil, core.Config{})
	ctx := backend.WithActor(context.Background(), backend.SystemActor)
	open := func() backend.MCPSession {
		t.Helper()
		return coreMust[backend.MCPSession](t)(svc.OpenSession(ctx, core.OpenSessionInput{Profile: "standard"}))
	}
	seen := map[string]bool{}
	var first backend.MCPSession
	for i := 0; i < 2*core.BadgePoolSize+1; i++ {
		s := open()
		if seen[s.Badge] {
			t.Fatalf("open %d: badge %q given twice", i, s.Badge)
		}
		seen[s.Badge] = true
		want := ""
		switch {
		case i >= 2*core.BadgePoolSize:
			want = "3"
		case i >= core.BadgePoolSize:
			want = "2"
		}
		if strings.TrimRight(s.Badge, "0123456789") == s.Badge != (want == "") || !strings.HasSuffix(s.Badge, want) {
			t.Fatalf("open %d: badge %q, want level %q", i, s.Badge, want)
		}
		if i == 0 {
			first = s
		}
	}
	if err := svc.TerminateSession(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
	if s := open(); s.Badge != first.Badge {
		t.Errorf("after freeing %q the next badge is %q, want the freed plain word", first.Badge, s.Badge)
	}
}

// TestSessionCapPerToken: opening one session past the cap expires the token's least recently
// used one; other tokens' sessions are untouched.
func TestSessionCapPerToken(t *testing.T) {
	const limit = 5
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}
	svc := core.NewHub(pgtest.NewStore(t), nil, newTestSealer(t), clock, nil,
		core.Config{MaxSessionsPerToken: limit})
	admin := backend.WithActor(context.Background(), backend.SystemActor)
	agent := func(name string) context.Context {
		tok := coreMust[core.NewToken](t)(svc.CreateToken(admin, core.TokenInput{Name: name, Scope: backend.ScopeAgent}))
		return backend.WithActor(context.Background(), backend.Actor{TokenID: tok.ID, Scope: backend.ScopeAgent, Kind: backend.ActorAgent})
	}
	a, b := agent("a"), agent("b")
	open := func(ctx context.Context) backend.MCPSession {
		t.Helper()
		return coreMust[backend.MCPSession](t)(svc.OpenSession(ctx, core.OpenSessionInput{Profile: "standard"}))
	}
	other := open(b)
	var mine []backend.MCPSession
	for i := 0; i < limit; i++ {
		mine = append(mine, open(a))
	}
	// The oldest one is used again a minute later (last-seen is refreshed every 30 s at most),
	// so the second is now the least recently used.
	mu.Lock()
	now = now.Add(time.Minute)
	mu.Unlock()
	if _, err := svc.LookupSession(a, mine[0].ID); err != nil {
		t.Fatal(err)
	}
	mine = append(mine, open(a))
	for i, s := range mine {
		_, err := svc.LookupSession(a, s.ID)
		if gone := backend.ErrorCode(err) == backend.CodeNotFound; gone != (i == 1) {
			t.Errorf("session %d: lookup error %v; only session 1 (least recently used) should be gone", i, err)
		}
	}
	if _, err := svc.LookupSession(b, other.ID); err != nil {
		t.Errorf("another token's session: %v", err)
	}
}
