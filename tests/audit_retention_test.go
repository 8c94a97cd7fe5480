package tests

import (
	"context"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/audit"
	"github.com/agent-deck/agent-deck/backend/postgres"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// TestAuditRetention: the audit log deletes entries older than its retention while it runs,
// keeps newer ones, and counts what a full buffer could not take instead of blocking the call.
func TestAuditRetention(t *testing.T) {
	ctx := context.Background()
	store, err := postgres.Open(ctx, pgtest.NewDB(t))
	must(t, err)
	t.Cleanup(store.Close)
	now := time.Now()
	entry := func(age time.Duration) backend.ToolCall {
		return backend.ToolCall{At: now.Add(-age), ServiceName: "svc", Tool: "echo", Outcome: backend.OutcomeOK}
	}
	must(t, store.InsertToolCalls(ctx, []backend.ToolCall{entry(48 * time.Hour), entry(25 * time.Hour), entry(time.Minute)}))

	log := audit.New(store, nil, audit.Config{Retention: 24 * time.Hour, Buffer: 2, PruneEvery: 10 * time.Millisecond})
	for range 5 {
		log.RecordToolCall(entry(0))
	}
	if got := log.Dropped(); got != 3 {
		t.Errorf("dropped %d entries, want 3 (buffer of 2, 5 recorded before the writer ran)", got)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); log.Run(runCtx) }()
	deadline := time.Now().Add(20 * time.Second)
	var left []backend.ToolCall
	for time.Now().Before(deadline) {
		left, err = store.ListToolCalls(ctx, backend.ToolCallQuery{Limit: 100})
		must(t, err)
		if len(left) == 3 && log.Written() == 2 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	<-done
	if len(left) != 3 {
		t.Fatalf("%d entries left, want the recent one and the 2 buffered: %+v", len(left), left)
	}
	for _, e := range left {
		if now.Sub(e.At) > 24*time.Hour {
			t.Errorf("an entry older than the retention survived: %+v", e)
		}
	}
}
