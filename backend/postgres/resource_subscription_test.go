package postgres_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// TestResourceSubscriptions: a session keeps one subscription per playbook, however many
// spellings of its URI it subscribes with; unsubscribing by the URI kept ends it; a terminated
// session's subscriptions are not subscribers; rows go with their session.
func TestResourceSubscriptions(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	now := time.Now().Truncate(time.Microsecond)
	pb := newPlaybook(t, st, "pb_release", "Release")
	mustOK(t, st.CreateSession(ctx, newSession("sess-a", "otter", now)))
	mustOK(t, st.CreateSession(ctx, newSession("sess-b", "heron", now)))

	var last string
	for i := range 50 {
		last = fmt.Sprintf("agentdeck://playbooks/%%52elease%d", i)
		mustOK(t, st.SubscribeResource(ctx, backend.ResourceSubscription{SessionID: "sess-a", URI: last, PlaybookID: pb.ID}))
	}
	mustOK(t, st.SubscribeResource(ctx, backend.ResourceSubscription{SessionID: "sess-b", URI: "agentdeck://playbooks/pb_release", PlaybookID: pb.ID}))
	subs, err := st.ResourceSubscribers(ctx, pb.ID)
	mustOK(t, err)
	if len(subs) != 2 || subs[0].SessionID != "sess-a" || subs[0].URI != last || subs[1].SessionID != "sess-b" {
		t.Fatalf("subscribers %+v", subs)
	}

	mustOK(t, st.UnsubscribeResource(ctx, "sess-a", last))
	mustOK(t, st.UnsubscribeResource(ctx, "sess-a", "agentdeck://playbooks/never"))
	mustOK(t, st.TerminateSession(ctx, "sess-b", now))
	subs, err = st.ResourceSubscribers(ctx, pb.ID)
	mustOK(t, err)
	if len(subs) != 0 {
		t.Fatalf("after unsubscribe and termination: %+v", subs)
	}
}
