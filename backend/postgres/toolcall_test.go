package postgres_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// TestInsertToolCallsBatch: one batch writes every entry in order, resolving the deck by id or
// by the name a REST caller gave, leaving unknown ids and names as sent, and keeping arguments
// only for a deck that captured them when the call was made.
func TestInsertToolCallsBatch(t *testing.T) {
	st := pgtest.NewStore(t)
	dev, ops := newDeck(t, st, "dev"), newDeck(t, st, "ops")
	at := time.Now().UTC().Truncate(time.Microsecond)
	mustOK(t, st.SetDeckArgumentCapture(ctx, ops.ID, true, at.Add(-time.Minute)))
	calls := []backend.ToolCall{
		{At: at, SessionID: "s1", ClientName: "c", DeckID: dev.ID, DeckName: "dev", Tool: "one",
			Duration: 1500 * time.Microsecond, Outcome: backend.OutcomeOK, ResultBytes: 10,
			Arguments: json.RawMessage(`{"k":1}`)},
		{At: at, DeckName: "OPS", Tool: "two", Outcome: backend.OutcomeError, ErrorCode: backend.CodeDownstreamError,
			TokenID: "not-a-uuid", ServiceID: "not-a-uuid", ServiceName: "svc", Arguments: json.RawMessage(`{"k":2}`)},
		{At: at.Add(-time.Hour), DeckID: ops.ID, Tool: "three", Outcome: backend.OutcomeIsError,
			Arguments: json.RawMessage(`{"k":3}`)},
		{At: at, DeckName: "no-such-deck", Tool: "four", Outcome: backend.OutcomeOK},
	}
	mustOK(t, st.InsertToolCalls(ctx, calls))
	got, err := st.ListToolCalls(ctx, backend.ToolCallQuery{Limit: 10})
	mustOK(t, err)
	if len(got) != len(calls) {
		t.Fatalf("%d entries, want %d", len(got), len(calls))
	}
	type row struct{ tool, deckID, deckName, args string }
	want := []row{ // newest first: written in order, so ids descend
		{"four", "", "no-such-deck", ""},
		{"three", ops.ID, "ops", ""}, // made before capture was on
		{"two", ops.ID, "ops", `{"k": 2}`},
		{"one", dev.ID, "dev", ""},
	}
	for i, c := range got {
		r := row{c.Tool, c.DeckID, c.DeckName, string(c.Arguments)}
		if r != want[i] {
			t.Errorf("entry %d: %+v, want %+v", i, r, want[i])
		}
		if i > 0 && c.ID >= got[i-1].ID {
			t.Errorf("entry %d: id %d not below %d", i, c.ID, got[i-1].ID)
		}
	}
	one := got[3]
	if one.SessionID != "s1" || one.ClientName != "c" || one.DurationMS != 1.5 || one.ResultBytes != 10 ||
		one.Outcome != backend.OutcomeOK || !one.At.Equal(at) {
		t.Errorf("entry one: %+v", one)
	}
	if two := got[2]; two.ErrorCode != backend.CodeDownstreamError || two.ServiceID != "" || two.ServiceName != "svc" || two.TokenID != "" {
		t.Errorf("entry two: %+v", two)
	}
}
