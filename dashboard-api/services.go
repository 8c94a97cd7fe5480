package dashboardapi

import (
	"encoding/json"

	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

func (a *api) listServices(c *gin.Context) ([]backend.ServiceCard, error) {
	return a.svc.ListServices(ctx(c))
}

func (a *api) createService(c *gin.Context, in core.ServiceInput) (backend.ServiceCard, error) {
	return a.svc.CreateService(ctx(c), in)
}

func (a *api) getService(c *gin.Context) (backend.ServiceCard, error) {
	return a.svc.GetService(ctx(c), c.Param("service"))
}

func (a *api) updateService(c *gin.Context, in core.ServicePatch) (backend.ServiceCard, error) {
	return a.svc.UpdateService(ctx(c), c.Param("service"), in)
}

func (a *api) deleteService(c *gin.Context) error {
	return a.svc.DeleteService(ctx(c), c.Param("service"))
}

// requestDeck is the deck a REST request names: the body's or query's deck, else the header.
func requestDeck(c *gin.Context, fromBody string) string {
	for _, d := range []string{fromBody, c.Query("deck"), c.GetHeader(backend.HeaderDeck)} {
		if d != "" {
			return d
		}
	}
	return ""
}

func (a *api) listServiceTools(c *gin.Context) ([]core.ToolInfo, error) {
	return a.svc.ListServiceTools(ctx(c), c.Param("service"), requestDeck(c, ""))
}

func (a *api) updateToolSettings(c *gin.Context, in core.ToolSettingsInput) (core.ToolSettingsResult, error) {
	return a.svc.UpdateServiceToolSettings(ctx(c), c.Param("service"), in)
}

// callServiceTool answers with the downstream CallToolResult itself; a tool that failed on its
// own terms is still a 200 with "isError": true, as on MCP.
func (a *api) callServiceTool(c *gin.Context, in core.CallInput) (json.RawMessage, error) {
	in.Deck = requestDeck(c, in.Deck)
	res, err := a.svc.CallServiceTool(ctx(c), c.Param("service"), in)
	if err != nil {
		return nil, err
	}
	return res.Raw, nil
}

func (a *api) checkService(c *gin.Context) (backend.Health, error) {
	return a.svc.CheckService(ctx(c), c.Param("service"), requestDeck(c, ""))
}

// setToolOverride sets or clears one tool's override.
func (a *api) setToolOverride(c *gin.Context, in backend.ToolOverride) (backend.ServiceCard, error) {
	return a.svc.SetToolOverride(ctx(c), c.Param("service"), c.Param("tool"), in)
}

// listHeldTools is the one view of a service's held tool definitions (tool pinning).
func (a *api) listHeldTools(c *gin.Context) ([]core.HeldTool, error) {
	return a.svc.ListHeldTools(ctx(c), c.Param("service"))
}

// approveServiceTools pins the current definitions of held downstream tools (tool pinning).
func (a *api) approveServiceTools(c *gin.Context, in core.ApproveToolsInput) (core.ToolApprovals, error) {
	return a.svc.ApproveServiceTools(ctx(c), c.Param("service"), in)
}
