package dashboardapi

import (
	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// rotateRequest is the body of POST /credentials/{credential}/rotate.
type rotateRequest struct {
	Value string `json:"value"`
}

func (a *api) listCredentials(c *gin.Context) ([]backend.Credential, error) {
	return a.svc.ListCredentials(ctx(c))
}

func (a *api) createCredential(c *gin.Context, in core.CredentialInput) (backend.Credential, error) {
	return a.svc.CreateCredential(ctx(c), in)
}

func (a *api) getCredential(c *gin.Context) (backend.Credential, error) {
	return a.svc.GetCredential(ctx(c), c.Param("credential"))
}

func (a *api) updateCredential(c *gin.Context, in core.CredentialPatch) (backend.Credential, error) {
	return a.svc.UpdateCredential(ctx(c), c.Param("credential"), in)
}

func (a *api) rotateCredential(c *gin.Context, in rotateRequest) (backend.Credential, error) {
	return a.svc.RotateCredential(ctx(c), c.Param("credential"), in.Value)
}

func (a *api) deleteCredential(c *gin.Context) (core.CredentialDeletion, error) {
	return a.svc.DeleteCredential(ctx(c), c.Param("credential"))
}
