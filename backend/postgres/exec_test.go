package postgres_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

func TestExecAudit(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	deck := newDeck(t, st, "Work")
	first := backend.ExecAudit{CredentialIDs: []string{"cred_a", "cred_gone"}, DeckID: deck.ID, Command: []string{"env"}}
	mustOK(t, st.CreateExecAudit(ctx, &first))
	second := backend.ExecAudit{Command: []string{"make", "deploy"}}
	mustOK(t, st.CreateExecAudit(ctx, &second))
	if first.ID == 0 || second.ID <= first.ID || first.CreatedAt.IsZero() {
		t.Fatalf("ids/times not filled: %+v %+v", first, second)
	}
	done := time.Now().Truncate(time.Microsecond)
	mustOK(t, st.FinishExecAudit(ctx, first.ID, 3, done))
	wantCode(t, st.FinishExecAudit(ctx, 999999, 0, done), backend.CodeNotFound, "")
	wantCode(t, st.CreateExecAudit(ctx, &backend.ExecAudit{}), backend.CodeInvalidArgument, "command")

	list, err := st.ListExecAudits(ctx)
	mustOK(t, err)
	if len(list) != 2 || list[0].ID != second.ID {
		t.Fatalf("ListExecAudits = %+v", list)
	}
	got := list[1]
	if got.ExitCode == nil || *got.ExitCode != 3 || got.FinishedAt == nil || !got.FinishedAt.Equal(done) ||
		got.DeckID != deck.ID {
		t.Fatalf("finished entry = %+v", got)
	}
	if diff := cmp.Diff(first.CredentialIDs, got.CredentialIDs); diff != "" {
		t.Fatalf("credential ids (-want +got):\n%s", diff)
	}
}
