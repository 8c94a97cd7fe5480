package dashboardapi

import (
	"encoding/json"
	"errors"

	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend"
)

// probeStatus is the body of /healthz and of a ready /readyz.
type probeStatus struct {
	Status string `json:"status"`
}

// healthz says the process serves HTTP; it touches nothing else.
func (a *api) healthz(*gin.Context) (probeStatus, error) {
	return probeStatus{Status: "ok"}, nil
}

// readyz says the deck can serve requests: the database answers and any extra check passes.
func (a *api) readyz(c *gin.Context) (probeStatus, error) {
	if err := a.svc.Ready(ctx(c)); err != nil {
		return probeStatus{}, err
	}
	if a.opts.Ready != nil {
		if err := a.opts.Ready(ctx(c)); err != nil {
			if _, ok := errors.AsType[*backend.Error](err); !ok {
				err = &backend.Error{Code: backend.CodeUnavailable, Message: "not ready", Err: err}
			}
			return probeStatus{}, err
		}
	}
	return probeStatus{Status: "ready"}, nil
}

// openAPI serves the document generated from the route table.
func (a *api) openAPI(*gin.Context) (json.RawMessage, error) {
	return a.openapi, nil
}

// info reports what the composition root says about this server.
func (a *api) info(c *gin.Context) (map[string]any, error) {
	return a.opts.Info(ctx(c))
}
