package dashboardapi

import (
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

func (a *api) listPlaybooks(c *gin.Context) ([]backend.Playbook, error) {
	return a.svc.ListPlaybooks(ctx(c))
}

func (a *api) createPlaybook(c *gin.Context, in backend.PlaybookInput) (core.PlaybookResult, error) {
	return a.svc.CreatePlaybook(ctx(c), in)
}

func (a *api) getPlaybook(c *gin.Context) (backend.Playbook, error) {
	return a.svc.GetPlaybook(ctx(c), c.Param("playbook"))
}

func (a *api) updatePlaybook(c *gin.Context, in core.PlaybookPatch) (core.PlaybookResult, error) {
	return a.svc.UpdatePlaybook(ctx(c), c.Param("playbook"), in)
}

func (a *api) deletePlaybook(c *gin.Context) error {
	return a.svc.DeletePlaybook(ctx(c), c.Param("playbook"))
}

func (a *api) listPlaybookVersions(c *gin.Context) ([]backend.PlaybookVersion, error) {
	return a.svc.ListPlaybookVersions(ctx(c), c.Param("playbook"))
}

func (a *api) restorePlaybookVersion(c *gin.Context) (core.PlaybookResult, error) {
	n, err := positiveParam(c, "version")
	if err != nil {
		return core.PlaybookResult{}, err
	}
	return a.svc.RestorePlaybookVersion(ctx(c), c.Param("playbook"), int(n))
}

func (a *api) listDependents(c *gin.Context) ([]backend.PlaybookSummary, error) {
	return a.svc.Dependents(ctx(c), backend.CardType(c.Query("card_type")), c.Query("card_id"))
}

// positiveParam parses a path parameter that must be a positive integer (version numbers,
// exec audit ids).
func positiveParam(c *gin.Context, name string) (int64, error) {
	n, err := strconv.ParseInt(c.Param(name), 10, 63)
	if err != nil || n < 1 {
		return 0, badInput(name, "path parameter %s must be a positive integer, got %q", name,
			clipText(c.Param(name), 40))
	}
	return n, nil
}

// getDeckPlaybookReview says whether agents' playbook writes on a deck are held for review.
func (a *api) getDeckPlaybookReview(c *gin.Context) (core.DeckPlaybookReview, error) {
	return a.svc.GetDeckPlaybookReview(ctx(c), c.Param("deck"))
}

// setDeckPlaybookReview sets or clears a deck's review setting.
func (a *api) setDeckPlaybookReview(c *gin.Context, in core.DeckPlaybookReviewInput) (core.DeckPlaybookReview, error) {
	return a.svc.SetDeckPlaybookReview(ctx(c), c.Param("deck"), in)
}

// previewMarkdown renders a playbook body (saved or not) the way the dashboard shows it.
func (a *api) previewMarkdown(c *gin.Context, in core.MarkdownInput) (core.MarkdownPreview, error) {
	return a.svc.PreviewMarkdown(ctx(c), in)
}
