package dashboardapi

import (
	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend/core"
)

// setDeckSampling grants or withdraws sampling for a service on a deck; both come from the path.
func (a *api) setDeckSampling(c *gin.Context, in core.DeckSamplingInput) (core.DeckSampling, error) {
	in.Deck, in.Service = c.Param("deck"), c.Param("service")
	return a.svc.SetDeckSampling(ctx(c), in)
}

// getDeckSampling says whether a service on a deck may sample.
func (a *api) getDeckSampling(c *gin.Context) (core.DeckSampling, error) {
	return a.svc.GetDeckSampling(ctx(c), c.Param("deck"), c.Param("service"))
}
