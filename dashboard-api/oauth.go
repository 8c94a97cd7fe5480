package dashboardapi

import (
	"html"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

var oauthCallbackDoc = map[string]any{"type": "string", "description": "A page telling the person the sign-in finished or why not."}

// oauthRoutes are the routes of services that need sign-in: start and forget a sign-in (admin;
// any person for their own, on a service that takes each person's own), read its state, and the callback the authorization server sends the person's browser to.
func (a *api) oauthRoutes() []route {
	return []route{
		withBody(http.MethodPost, v1+"/services/:service/connect", "Start signing in to a service that needs OAuth (optionally with a pre-registered client); answers the page a person opens to consent (the caller's own sign-in, on a service that takes each person's own); admin", http.StatusOK, a.connectService).adminOnly(),
		noContent(http.MethodPost, v1+"/services/:service/disconnect", "Forget a service's sign-in, revoked where the server supports it (the caller's own, on a service that takes each person's own); admin", a.disconnectService).adminOnly(),
		noBody(http.MethodGet, v1+"/services/:service/auth", "A service's sign-in state (the caller's own, for a service that takes each person's own): none, connected (expiry, scopes), needs_sign_in or error", a.serviceAuth),
		{method: http.MethodGet, path: core.OAuthCallbackPath, summary: "Where a service's authorization server sends the person back after consent",
			op: "oauthCallback", public: true, status: http.StatusOK, responseDoc: oauthCallbackDoc, contentType: "text/html",
			query: []queryParam{{name: "state", description: "the sign-in's state"}, {name: "code", description: "the authorization code"},
				{name: "error", description: "the authorization server's refusal"}},
			serve: a.oauthCallback},
		noBody(http.MethodGet, core.OAuthClientMetadataPath, "Agent Deck's own OAuth Client ID Metadata Document, fetched by the authorization servers of services it signs in to",
			a.clientMetadata).withPublic(),
	}
}

func (a *api) clientMetadata(c *gin.Context) (core.ClientMetadata, error) {
	return a.svc.ClientMetadataDocument(requestBase(c.Request)), nil
}

func (a *api) connectService(c *gin.Context, in core.OAuthConnectInput) (core.OAuthConnect, error) {
	return a.svc.ConnectService(ctx(c), c.Param("service"), requestBase(c.Request)+core.OAuthCallbackPath, in)
}

func (a *api) disconnectService(c *gin.Context) error {
	return a.svc.DisconnectService(ctx(c), c.Param("service"))
}

func (a *api) serviceAuth(c *gin.Context) (core.OAuthStatus, error) {
	return a.svc.ServiceOAuthStatus(ctx(c), c.Param("service"))
}

// oauthCallback finishes the sign-in and shows the person a page: the browser, not a client,
// reads the answer. Only an error's safe message is shown.
func (a *api) oauthCallback(c *gin.Context) {
	q := c.Request.URL.Query()
	done, err := a.svc.FinishOAuth(ctx(c), q.Get("state"), q.Get("code"), q.Get("error"))
	status, msg := http.StatusOK, "Agent Deck is signed in to "+done.ServiceName+". You can close this tab."
	if err != nil {
		e := backend.Public(err, "")
		status, msg = e.Status, e.Message
		if e.Hint != "" {
			msg += ". " + e.Hint
		}
	}
	c.Header("Cache-Control", "no-store")
	c.Header("Referrer-Policy", "no-referrer")
	c.Data(status, "text/html; charset=utf-8", []byte("<!doctype html><meta charset=utf-8><title>Agent Deck</title><p>"+html.EscapeString(msg)+"</p>\n"))
}
