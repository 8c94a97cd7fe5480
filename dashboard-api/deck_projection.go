package dashboardapi

import (
	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend/core"
)

// getDeckProjection is the deck's projected-tools setting and what it projects now.
func (a *api) getDeckProjection(c *gin.Context) (core.DeckProjectionView, error) {
	return a.svc.DeckProjection(ctx(c), c.Param("deck"))
}

// setDeckProjection turns the deck's projected tools on (with caps) or off.
func (a *api) setDeckProjection(c *gin.Context, in core.DeckProjectionInput) (core.DeckProjectionView, error) {
	return a.svc.SetDeckProjection(ctx(c), c.Param("deck"), in)
}
