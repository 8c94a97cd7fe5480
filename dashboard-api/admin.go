package dashboardapi

import (
	"encoding/json"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

func (a *api) listTokens(c *gin.Context) ([]backend.Token, error) {
	return a.svc.ListTokens(ctx(c))
}

func (a *api) createToken(c *gin.Context, in core.TokenInput) (core.NewToken, error) {
	return a.svc.CreateToken(ctx(c), in)
}

func (a *api) revokeToken(c *gin.Context) error {
	id := c.Param("token")
	if u, err := uuid.Parse(id); (err != nil || u.String() != id) && !tokenIDStart(id) {
		return badInput("token", "path parameter token must be a token id (a lower-case UUID, or at least its first %d characters), got %q",
			backend.MinIDPrefix, clipText(id, 40)).WithHint("GET /api/v1/tokens lists the token ids")
	}
	return a.svc.RevokeToken(ctx(c), id)
}

// tokenIDStart reports whether id can be the start of a token id: lower-case hex and dashes,
// long enough to stand for one (backend.ResolveIDPrefix).
func tokenIDStart(id string) bool {
	return len(id) >= backend.MinIDPrefix && len(id) < 36 &&
		strings.Trim(id, "0123456789abcdef-") == ""
}

func (a *api) listSessions(c *gin.Context) ([]backend.MCPSession, error) {
	return a.svc.ListSessions(ctx(c))
}

// endSession ends a live MCP session; its client must start a new one.
func (a *api) endSession(c *gin.Context) error {
	return a.svc.EndSession(ctx(c), c.Param("session"))
}

func (a *api) display(c *gin.Context) (core.DisplayLine, error) {
	return a.svc.Display(ctx(c), c.Query("workspace"))
}

func (a *api) exportBundle(c *gin.Context) (json.RawMessage, error) {
	return a.svc.Export(ctx(c), core.ExportInput{Deck: c.Query("deck")})
}

func (a *api) exportSelection(c *gin.Context, in core.ExportInput) (json.RawMessage, error) {
	return a.svc.Export(ctx(c), in)
}

func (a *api) importBundle(c *gin.Context, bundle json.RawMessage) (core.ImportReport, error) {
	return a.svc.Import(ctx(c), bundle, c.Query("dry_run") == "true")
}

func (a *api) startExec(c *gin.Context, in core.ExecInput) (core.ExecGrant, error) {
	return a.svc.StartExec(ctx(c), in)
}

func (a *api) finishExec(c *gin.Context, in core.ExecFinish) error {
	id, err := positiveParam(c, "exec")
	if err != nil {
		return err
	}
	return a.svc.FinishExec(ctx(c), id, in)
}

func (a *api) listExecAudits(c *gin.Context) ([]backend.ExecAudit, error) {
	return a.svc.ListExecAudits(ctx(c))
}
