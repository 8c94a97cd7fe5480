package core

import (
	"context"

	"github.com/agent-deck/agent-deck/backend"
)

// What one agent token may leave open for people to review. An agent in a loop (or one told
// to by text it read) could otherwise fill the review queue without end; past the bound it
// supersedes its own proposals or names its signals in one, and a person's review makes room.
const (
	MaxOpenProposalsPerToken = 50
	MaxOpenSignalsPerToken   = 100
)

// learningRecord is what an agent adds to the review queue.
type learningRecord int

const (
	recordProposal learningRecord = iota
	recordSignal
)

// roomToRecord refuses an agent token a new proposal or signal past its bound (LIMIT_REACHED,
// naming the limit). freed is how many of the token's own open proposals the new one
// supersedes. Admins and callers without a token are not bounded.
func roomToRecord(ctx context.Context, st backend.Store, a backend.Actor, what learningRecord, freed int) error {
	if a.TokenID == "" || a.IsAdmin() {
		return nil
	}
	props, sigs, err := st.OpenByToken(ctx, a.TokenID)
	if err != nil {
		return backend.StoreErr("counting open proposals", err)
	}
	if what == recordProposal && props-freed >= MaxOpenProposalsPerToken {
		return backend.Errorf(backend.CodeLimitReached,
			"this token has %d open proposals, the limit of %d per token; a person reviews them before it proposes more",
			props, MaxOpenProposalsPerToken).
			WithDetail("limit", MaxOpenProposalsPerToken).WithDetail("open", props).
			WithHint(backend.InWordsOf(ctx, "review them: agent-deck proposals --status open",
				"supersede one of your open proposals (supersedes) instead of adding one; get_playbook lists them, or ask the user to review them (agent-deck proposals)"))
	}
	if what == recordSignal && sigs >= MaxOpenSignalsPerToken {
		return backend.Errorf(backend.CodeLimitReached,
			"this token has %d open feedback signals, the limit of %d per token; a person reviews them before it records more",
			sigs, MaxOpenSignalsPerToken).
			WithDetail("limit", MaxOpenSignalsPerToken).WithDetail("open", sigs).
			WithHint(backend.InWordsOf(ctx, "review them: agent-deck signals, agent-deck signal discard ID…",
				"propose a change naming them (signal_ids), or ask the user to review them (agent-deck signals)"))
	}
	return nil
}
