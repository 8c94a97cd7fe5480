package dashboardapi

import (
	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend/core"
)

// Rate limits of proxied calls, per deck, per service and per service on a deck; the subject
// comes from the path.

func (a *api) getDeckLimits(c *gin.Context) (core.RateLimits, error) {
	return a.svc.RateLimitsOf(ctx(c), core.RateLimitsInput{Deck: c.Param("deck")})
}

func (a *api) setDeckLimits(c *gin.Context, in core.RateLimitsInput) (core.RateLimits, error) {
	in.Deck, in.Service = c.Param("deck"), ""
	return a.svc.SetRateLimits(ctx(c), in)
}

func (a *api) getDeckServiceLimits(c *gin.Context) (core.RateLimits, error) {
	return a.svc.RateLimitsOf(ctx(c), core.RateLimitsInput{Deck: c.Param("deck"), Service: c.Param("service")})
}

func (a *api) setDeckServiceLimits(c *gin.Context, in core.RateLimitsInput) (core.RateLimits, error) {
	in.Deck, in.Service = c.Param("deck"), c.Param("service")
	return a.svc.SetRateLimits(ctx(c), in)
}

func (a *api) getServiceLimits(c *gin.Context) (core.RateLimits, error) {
	return a.svc.RateLimitsOf(ctx(c), core.RateLimitsInput{Service: c.Param("service")})
}

func (a *api) setServiceLimits(c *gin.Context, in core.RateLimitsInput) (core.RateLimits, error) {
	in.Deck, in.Service = "", c.Param("service")
	return a.svc.SetRateLimits(ctx(c), in)
}
