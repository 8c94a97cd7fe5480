package dashboardapi

import (
	"github.com/gin-gonic/gin"
	"github.com/pmezard/go-difflib/difflib"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// proposalView is a proposal preview with the body change as a unified diff, which the CLI
// prints and the dashboard colours.
type proposalView struct {
	core.ProposalPreview
	Diff string `json:"diff"`
}

type proposalRejectBody struct {
	Reason string `json:"reason,omitempty"`
}

type signalDiscardBody struct {
	IDs []string `json:"ids"`
}

type signalImportBody struct {
	Signals []core.SignalImport `json:"signals"`
}

func (a *api) listProposals(c *gin.Context) ([]backend.Proposal, error) {
	return a.svc.ListProposals(ctx(c), backend.ProposalFilter{Status: backend.ProposalStatus(c.Query("status")),
		PlaybookID: c.Query("playbook"), DeckID: c.Query("deck")})
}

func (a *api) showProposal(c *gin.Context) (proposalView, error) {
	pv, err := a.svc.PreviewProposal(ctx(c), c.Param("proposal"))
	if err != nil {
		return proposalView{}, err
	}
	return proposalView{ProposalPreview: pv, Diff: unifiedDiff(pv)}, nil
}

// unifiedDiff renders the body change; empty when the body stays as it is.
func unifiedDiff(pv core.ProposalPreview) string {
	if pv.BodyBefore == pv.BodyAfter {
		return ""
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(pv.BodyBefore), B: difflib.SplitLines(pv.BodyAfter),
		FromFile: "current", ToFile: "proposed", Context: 3,
	})
	if err != nil {
		return "" // writing to a strings.Builder does not fail
	}
	return d
}

func (a *api) acceptProposal(c *gin.Context) (core.AcceptResult, error) {
	return a.svc.AcceptProposal(ctx(c), c.Param("proposal"))
}

func (a *api) rejectProposal(c *gin.Context, in proposalRejectBody) (core.AcceptResult, error) {
	return a.svc.RejectProposal(ctx(c), c.Param("proposal"), in.Reason)
}

func (a *api) listSignals(c *gin.Context) ([]backend.Signal, error) {
	return a.svc.ListSignals(ctx(c))
}

func (a *api) discardSignals(c *gin.Context, in signalDiscardBody) ([]backend.Signal, error) {
	return a.svc.DiscardSignals(ctx(c), in.IDs)
}

func (a *api) importSignals(c *gin.Context, in signalImportBody) ([]backend.Signal, error) {
	return a.svc.ImportSignals(ctx(c), in.Signals)
}

func (a *api) playbookUsage(c *gin.Context) ([]backend.PlaybookFetchStat, error) {
	return a.svc.PlaybookFetchStats(ctx(c))
}

func proposalStatusNames() []string {
	out := make([]string, len(backend.ProposalStatuses))
	for i, s := range backend.ProposalStatuses {
		out[i] = string(s)
	}
	return out
}
