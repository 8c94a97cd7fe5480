package core_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

type learnFixture struct {
	*coreFixture
	agentTok context.Context
	sess     backend.MCPSession
	deck     backend.Deck
	pb       backend.Playbook
}

func newLearnFixture(t *testing.T) *learnFixture {
	t.Helper()
	f := newCoreFixture(t)
	d := f.deck(t, "Ops")
	pb := f.playbook(t, backend.PlaybookInput{Title: "Deploy", Triggers: []string{"deploy"},
		Body: "Deploy it.\n\n## Steps\n\n- build\n- push\n"}).Playbook
	f.link(t, d.ID, backend.CardPlaybook, pb.ID)
	tok := coreMust[core.NewToken](t)(f.svc.CreateToken(f.admin, core.TokenInput{Name: "agent", Scope: backend.ScopeAgent}))
	agent := backend.WithActor(context.Background(), backend.Actor{TokenID: tok.ID, Scope: backend.ScopeAgent, Kind: backend.ActorAgent})
	sess := coreMust[backend.MCPSession](t)(f.svc.OpenSession(agent, core.OpenSessionInput{Profile: "runtime", Deck: d.ID}))
	return &learnFixture{coreFixture: f, agentTok: agent, sess: sess, deck: d, pb: pb}
}

func (f *learnFixture) propose(t *testing.T, in core.ProposeInput) core.ProposeResult {
	t.Helper()
	return coreMust[core.ProposeResult](t)(f.svc.ProposePlaybookPatch(f.agentTok, f.sess.ID, in))
}

func addItem(pb, text string) core.ProposeInput {
	return core.ProposeInput{Kind: backend.ProposalUpdate, PlaybookID: pb, Rationale: "user corrected the order",
		Ops: []backend.PlaybookOp{{Op: backend.OpAddItem, Section: "steps", Text: text}}}
}

func TestProposalAcceptWritesAVersionNamingTheProposal(t *testing.T) {
	f := newLearnFixture(t)
	res := f.propose(t, addItem(f.pb.ID, "smoke test"))
	view := coreMust[core.BoundPlaybookView](t)(f.svc.BoundPlaybook(f.agentTok, f.sess.ID, f.pb.ID))
	if len(view.OpenProposals) != 1 || view.OpenProposals[0].ID != res.Proposal.ID {
		t.Fatalf("get_playbook open proposals = %+v, want the one proposed", view.OpenProposals)
	}
	if strings.Contains(view.Body, "smoke test") {
		t.Fatal("an open proposal changed the playbook")
	}
	got := coreMust[core.AcceptResult](t)(f.svc.AcceptProposal(f.admin, res.Proposal.ID))
	if got.Proposal.Status != backend.ProposalAccepted || !strings.Contains(got.Playbook.Body, "- push\n- smoke test\n") {
		t.Fatalf("accept = %+v", got)
	}
	vs := coreMust[[]backend.PlaybookVersion](t)(f.svc.ListPlaybookVersions(f.admin, f.pb.ID))
	if len(vs) != 1 || vs[0].ProposalID != res.Proposal.ID || vs[0].Actor != backend.ActorAgent {
		t.Fatalf("versions = %+v, want one by agent naming %s", vs, res.Proposal.ID)
	}
	_, err := f.svc.AcceptProposal(f.admin, res.Proposal.ID)
	wantCode(t, err, backend.CodeConflict)
}

func TestProposalRefusals(t *testing.T) {
	f := newLearnFixture(t)
	other := f.playbook(t, backend.PlaybookInput{Title: "Elsewhere", Body: "x"}).Playbook
	unbound := coreMust[backend.MCPSession](t)(f.svc.OpenSession(f.agentTok, core.OpenSessionInput{Profile: "runtime"}))
	tests := []struct {
		name    string
		session string
		in      core.ProposeInput
		code    backend.Code
	}{
		{"unbound session", unbound.ID, addItem(f.pb.ID, "x"), backend.CodeNotBound},
		{"playbook not on the bound deck", f.sess.ID, addItem(other.ID, "x"), backend.CodeNotOnBoundDeck},
		{"unknown kind", f.sess.ID, core.ProposeInput{Kind: "patch", Rationale: "r"}, backend.CodeInvalidArgument},
		{"no rationale", f.sess.ID, core.ProposeInput{Kind: backend.ProposalUpdate, PlaybookID: f.pb.ID,
			Ops: []backend.PlaybookOp{{Op: "add_item", Section: "Steps", Text: "x"}}}, backend.CodeInvalidArgument},
		{"ops that do not apply", f.sess.ID, core.ProposeInput{Kind: backend.ProposalUpdate, PlaybookID: f.pb.ID,
			Rationale: "r", Ops: []backend.PlaybookOp{{Op: "remove_item", Section: "Steps", Anchor: "deploy"}}},
			backend.CodePatchConflict},
		{"ops that change nothing", f.sess.ID, core.ProposeInput{Kind: backend.ProposalUpdate, PlaybookID: f.pb.ID,
			Rationale: "r", Ops: []backend.PlaybookOp{{Op: "set_triggers", Triggers: []string{"deploy"}}}},
			backend.CodePatchNoChange},
		{"create without triggers", f.sess.ID, core.ProposeInput{Kind: backend.ProposalCreate, Rationale: "r",
			NewPlaybook: &backend.PlaybookInput{Title: "New", Body: "b"}}, backend.CodeInvalidArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.svc.ProposePlaybookPatch(f.agentTok, tc.session, tc.in)
			wantCode(t, err, tc.code)
		})
	}
	if ps := coreMust[[]backend.Proposal](t)(f.svc.ListProposals(f.admin, backend.ProposalFilter{})); len(ps) != 0 {
		t.Errorf("refused proposals were stored: %+v", ps)
	}
}

func TestProposalReviewRules(t *testing.T) {
	f := newLearnFixture(t)
	p := f.propose(t, addItem(f.pb.ID, "smoke test")).Proposal
	t.Run("agents cannot list or accept", func(t *testing.T) {
		_, err := f.svc.AcceptProposal(f.agentTok, p.ID)
		wantCode(t, err, backend.CodeForbidden)
		_, err = f.svc.ListProposals(f.agentTok, backend.ProposalFilter{})
		wantCode(t, err, backend.CodeForbidden)
	})
	t.Run("the proposing token cannot accept even with admin scope", func(t *testing.T) {
		a, _ := backend.ActorFrom(f.agentTok)
		own := backend.WithActor(context.Background(), backend.Actor{TokenID: a.TokenID, Scope: backend.ScopeAdmin, Kind: backend.ActorUser})
		_, err := f.svc.AcceptProposal(own, p.ID)
		wantCode(t, err, backend.CodeForbidden)
	})
	t.Run("stale: ops no longer apply, 409 and nothing changed", func(t *testing.T) {
		amend := f.propose(t, core.ProposeInput{Kind: backend.ProposalUpdate, PlaybookID: f.pb.ID, Rationale: "r",
			Ops: []backend.PlaybookOp{{Op: "amend_item", Section: "Steps", Anchor: "push", Text: "push to registry"}}}).Proposal
		coreMust[core.PlaybookResult](t)(f.svc.UpdatePlaybook(f.admin, f.pb.ID, core.PlaybookPatch{Body: ptr("## Steps\n\n- ship\n")}))
		_, err := f.svc.AcceptProposal(f.admin, amend.ID)
		wantCode(t, err, backend.CodePatchConflict)
		got := coreMust[core.ProposalPreview](t)(f.svc.PreviewProposal(f.admin, amend.ID))
		if got.Status != backend.ProposalStale {
			t.Errorf("status = %s, want stale", got.Status)
		}
		if pb := coreMust[backend.Playbook](t)(f.svc.GetPlaybook(f.admin, f.pb.ID)); pb.Body != "## Steps\n\n- ship\n" {
			t.Errorf("a stale accept changed the body: %q", pb.Body)
		}
	})
	t.Run("reject keeps the reason and reopens signals", func(t *testing.T) {
		sig := f.propose(t, core.ProposeInput{Kind: backend.ProposalSignalOnly, PlaybookID: f.pb.ID, Rationale: "user said: ship first"}).Signal
		in := addItem(f.pb.ID, "announce")
		in.SignalIDs = []string{sig.ID}
		q := f.propose(t, in).Proposal
		gs := coreMust[[]backend.Signal](t)(f.svc.ListSignals(f.admin))
		if gs[0].Status != backend.SignalParked || gs[0].ProposalID != q.ID {
			t.Fatalf("signal = %+v, want parked on %s", gs[0], q.ID)
		}
		r := coreMust[core.AcceptResult](t)(f.svc.RejectProposal(f.admin, q.ID, "not our policy"))
		if r.Proposal.Status != backend.ProposalRejected || r.Proposal.Reason != "not our policy" {
			t.Errorf("reject = %+v", r.Proposal)
		}
		gs = coreMust[[]backend.Signal](t)(f.svc.ListSignals(f.admin))
		if gs[0].Status != backend.SignalOpen || gs[0].ProposalID != "" {
			t.Errorf("signal after reject = %+v, want open", gs[0])
		}
	})
	t.Run("supersede moves the old proposal's signals", func(t *testing.T) {
		sig := f.propose(t, core.ProposeInput{Kind: backend.ProposalSignalOnly, Rationale: "again"}).Signal
		in := addItem(f.pb.ID, "first")
		in.SignalIDs = []string{sig.ID}
		old := f.propose(t, in).Proposal
		in2 := addItem(f.pb.ID, "second")
		in2.Supersedes = []string{old.ID}
		succ := f.propose(t, in2).Proposal
		o := coreMust[core.ProposalPreview](t)(f.svc.PreviewProposal(f.admin, old.ID))
		if o.Status != backend.ProposalSuperseded || o.SupersededBy != succ.ID {
			t.Errorf("old = %s by %q, want superseded by %s", o.Status, o.SupersededBy, succ.ID)
		}
		coreMust[core.AcceptResult](t)(f.svc.AcceptProposal(f.admin, succ.ID))
		for _, g := range coreMust[[]backend.Signal](t)(f.svc.ListSignals(f.admin)) {
			if g.ID == sig.ID && (g.Status != backend.SignalActioned || g.ProposalID != succ.ID) {
				t.Errorf("signal = %+v, want actioned by %s", g, succ.ID)
			}
		}
	})
}

func TestProposalCreateAndRetire(t *testing.T) {
	f := newLearnFixture(t)
	c := f.propose(t, core.ProposeInput{Kind: backend.ProposalCreate, Rationale: "no playbook for rollbacks",
		NewPlaybook: &backend.PlaybookInput{Title: "Rollback", Body: "Roll back.", Triggers: []string{"rollback"}}}).Proposal
	got := coreMust[core.AcceptResult](t)(f.svc.AcceptProposal(f.admin, c.ID))
	if got.Playbook == nil || got.Proposal.PlaybookID != got.Playbook.ID {
		t.Fatalf("create accept = %+v", got)
	}
	coreMust[core.BoundPlaybookView](t)(f.svc.BoundPlaybook(f.agentTok, f.sess.ID, "Rollback"))
	r := f.propose(t, core.ProposeInput{Kind: backend.ProposalRetire, PlaybookID: "Rollback", Rationale: "obsolete"}).Proposal
	coreMust[core.AcceptResult](t)(f.svc.AcceptProposal(f.admin, r.ID))
	_, err := f.svc.BoundPlaybook(f.agentTok, f.sess.ID, "Rollback")
	wantCode(t, err, backend.CodeNotOnBoundDeck)
}

// Two accepts on one playbook at once: both lock the playbook, so the second sees the first's
// change; its anchor is gone, so it becomes stale.
func TestProposalConcurrentAcceptsOneWins(t *testing.T) {
	f := newLearnFixture(t)
	var ids []string
	for _, text := range []string{"push to A", "push to B"} {
		ids = append(ids, f.propose(t, core.ProposeInput{Kind: backend.ProposalUpdate, PlaybookID: f.pb.ID, Rationale: "r",
			Ops: []backend.PlaybookOp{{Op: "amend_item", Section: "Steps", Anchor: "push", Text: text}}}).Proposal.ID)
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() { _, errs[i] = f.svc.AcceptProposal(f.admin, id) })
	}
	wg.Wait()
	won, stale := 0, 0
	for _, err := range errs {
		switch backend.ErrorCode(err) {
		case "":
			won++
		case backend.CodePatchConflict:
			stale++
		default:
			t.Errorf("accept: %v", err)
		}
	}
	if won != 1 || stale != 1 {
		t.Fatalf("won %d, stale %d; want 1 and 1 (%v)", won, stale, errs)
	}
	statuses := map[backend.ProposalStatus]int{}
	for _, p := range coreMust[[]backend.Proposal](t)(f.svc.ListProposals(f.admin, backend.ProposalFilter{PlaybookID: f.pb.ID})) {
		statuses[p.Status]++
	}
	if statuses[backend.ProposalAccepted] != 1 || statuses[backend.ProposalStale] != 1 {
		t.Errorf("statuses = %v", statuses)
	}
	if vs := coreMust[[]backend.PlaybookVersion](t)(f.svc.ListPlaybookVersions(f.admin, f.pb.ID)); len(vs) != 1 {
		t.Errorf("versions = %d, want 1", len(vs))
	}
}

func TestPlaybookFetchEventsAreRecordedAndPruned(t *testing.T) {
	f := newLearnFixture(t)
	for range 2 {
		coreMust[core.BoundPlaybookView](t)(f.svc.BoundPlaybook(f.agentTok, f.sess.ID, f.pb.ID))
	}
	old := time.Now().Add(-core.DefaultPlaybookFetchRetention - time.Hour)
	if err := f.store.RecordPlaybookFetch(context.Background(), backend.PlaybookFetch{PlaybookID: f.pb.ID, At: old}); err != nil {
		t.Fatal(err)
	}
	stats := coreMust[[]backend.PlaybookFetchStat](t)(f.svc.PlaybookFetchStats(f.admin))
	if len(stats) != 1 || stats[0].Fetches != 3 {
		t.Fatalf("stats = %+v, want 3 fetches", stats)
	}
	coreMust[backend.MCPSession](t)(f.svc.OpenSession(f.agentTok, core.OpenSessionInput{Profile: "runtime"}))
	stats = coreMust[[]backend.PlaybookFetchStat](t)(f.svc.PlaybookFetchStats(f.admin))
	if len(stats) != 1 || stats[0].Fetches != 2 {
		t.Fatalf("stats after opening a session = %+v, want the old fetch pruned", stats)
	}
}
