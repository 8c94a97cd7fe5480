package dashboardapi

import (
	"fmt"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

const v1 = "/api/v1"

// Request and response shapes shown in the OpenAPI document for bodies passed through raw.
var (
	bundleDoc = map[string]any{
		"type":        "object",
		"description": `An Agent Deck bundle: {"format":"agent-deck-bundle","version":1, services, credentials, playbooks, decks}. No secret values.`,
		"required":    []string{"format", "version"},
		"properties": map[string]any{
			"format":  map[string]any{"type": "string", "const": "agent-deck-bundle", "description": "Always agent-deck-bundle"},
			"version": map[string]any{"type": "integer", "const": 1, "description": "Bundle format version; 1"},
		},
	}
	callResultDoc = map[string]any{
		"type":        "object",
		"description": "The downstream MCP CallToolResult as the server sent it, minus _meta (keys as in MCP). A tool that failed on its own terms answers 200 with isError true.",
		"properties": map[string]any{
			"content":           map[string]any{"type": "array", "items": map[string]any{"type": "object"}},
			"structuredContent": map[string]any{"type": "object"},
			"isError":           map[string]any{"type": "boolean"},
		},
	}
	openAPIDoc = map[string]any{"type": "object", "description": "This OpenAPI 3.1 document."}
	infoDoc    = map[string]any{"type": "object", "description": "Facts about the running server; never secrets."}
	metricsDoc = map[string]any{"type": "string", "description": "Metrics in the Prometheus text format."}
)

// routes is the whole REST surface, one row per route. The gin engine and the OpenAPI document
// are both built from it.
//
// Choices worth knowing: GET /decks/{deck} returns the deck row and GET /decks/{deck}/snapshot
// the deck with its cards in order; linking, unlinking and reordering cards answer 200 with the
// deck's cards of that type and any warnings (so unlink is not a 204); POST /services/{service}/call
// answers with the downstream CallToolResult itself; export exists as GET (query) and POST (body).
func (a *api) routes() []route {
	cardType := queryParam{name: "card_type", required: true, description: "service, credential or playbook",
		enum: backend.CardTypeNames()}
	deckQuery := queryParam{name: "deck", description: "deck id or name that links the service; required for agent tokens (or the " + backend.HeaderDeck + " header)"}
	deckHeader := queryParam{name: backend.HeaderDeck, description: "deck id or name that links the service; required for agent tokens unless given otherwise"}
	table := []route{
		noBody(http.MethodGet, "/healthz", "Liveness: the process answers HTTP", a.healthz).withPublic(),
		noBody(http.MethodGet, "/readyz", "Readiness: the database (and the proxy) can serve requests", a.readyz).withPublic(),
		noBody(http.MethodGet, v1+"/openapi.json", "This document; served without a token", a.openAPI).withDocs(nil, openAPIDoc).withPublic(),
		noBody(http.MethodGet, v1+"/problems/:code", "A problem type: what an error code means; served without a token", a.problemType).withPublic(),

		list(v1+"/decks", "List decks by name", a.listDecks, "id"),
		withBody(http.MethodPost, v1+"/decks", "Create an empty deck", http.StatusCreated, a.createDeck),
		noBody(http.MethodGet, v1+"/decks/:deck", "Get a deck by id or exact name", a.getDeck).withETag(),
		withBody(http.MethodPatch, v1+"/decks/:deck", "Rename a deck", http.StatusOK, a.renameDeck),
		noContent(http.MethodDelete, v1+"/decks/:deck", "Delete a deck (its cards stay in the collection); admin", a.deleteDeck).adminOnly(),
		noBody(http.MethodGet, v1+"/decks/:deck/snapshot", "The deck with its cards in order, no secrets; whole unless budget or cursor asks for a page", a.deckSnapshot).withETag().
			withQuery(queryParam{name: "card_type", description: "keep one card type: service, credential or playbook", enum: backend.CardTypeNames()},
				queryParam{name: "query", description: "keep cards whose id, name, title, label, description, triggers, env name or tags contain every word"},
				queryParam{name: "cursor", description: "more.cursor of the previous page: continue there"},
				intParam("budget", fmt.Sprintf("answer one page of at most this many tokens (%d with a cursor alone)",
					core.DefaultDeckBudget), core.MinDeckBudget, core.MaxDeckBudget)),
		withBody(http.MethodPost, v1+"/decks/:deck/cards", "Link a card to the deck (at a position, or last); a linked card moves", http.StatusOK, a.linkCard),
		noBody(http.MethodDelete, v1+"/decks/:deck/cards/:card_type/:card_id", "Unlink a card; warns which playbooks on the deck depend on it", a.unlinkCard),
		withBody(http.MethodPut, v1+"/decks/:deck/cards/:card_type/order", "Set the full order of one card type on the deck", http.StatusOK, a.reorderCards),
		noBody(http.MethodGet, v1+"/decks/:deck/services/:service/settings", "The deck's rules for a service it links: its tool subset and credential", a.getDeckServiceSettings),
		withBody(http.MethodPatch, v1+"/decks/:deck/services/:service/settings", "Change the deck's tool subset (allow or deny list) or credential for a linked service; agent tokens may only narrow the tools", http.StatusOK, a.updateDeckServiceSettings),

		list(v1+"/services", "List services (secret headers and local env masked)", a.listServices, "id"),
		withBody(http.MethodPost, v1+"/services", "Register a downstream MCP server", http.StatusCreated, a.createService),
		noBody(http.MethodGet, v1+"/services/:service", "Get a service by id or name", a.getService).withETag(),
		withBody(http.MethodPatch, v1+"/services/:service", "Change some fields of a service", http.StatusOK, a.updateService),
		noContent(http.MethodDelete, v1+"/services/:service", "Delete a service unless a playbook depends on it; admin", a.deleteService).adminOnly(),
		list(v1+"/services/:service/tools", "The service's downstream tools, raw, with enabled flags; agent tokens name a deck that links the service", a.listServiceTools, "name").
			withQuery(deckQuery).withHeaders(deckHeader),
		withBody(http.MethodPut, v1+"/services/:service/tool-settings", "Set the service's disabled tools", http.StatusOK, a.updateToolSettings),
		withBody(http.MethodPost, v1+"/services/:service/call", "Call a downstream tool; agent tokens name a deck that links the service (deck, or the header)", http.StatusOK, a.callServiceTool).
			withHeaders(deckHeader).withDocs(nil, callResultDoc),
		noBody(http.MethodPost, v1+"/services/:service/check", "Reach the service now and refresh its health; agent tokens name a deck that links the service", a.checkService).
			withQuery(deckQuery).withHeaders(deckHeader),
		withBody(http.MethodPost, v1+"/services/:service/approve", "Approve held definitions, exactly as GET /services/{service}/held shows them (those named, or with the given hashes, or all); admin", http.StatusOK, a.approveServiceTools).adminOnly(),
		withBody(http.MethodPut, v1+"/services/:service/tools/:tool/override", "Set what agents see of one tool instead of the downstream's own title, description and annotations (readOnlyHint, destructiveHint, openWorldHint); an empty object clears it; pins still compare the downstream's own definition; admin", http.StatusOK, a.setToolOverride).adminOnly(),
		list(v1+"/services/:service/held", "The held tool definitions every connection to the service saw (service or deck credential), each with its hash, what changed and the approved definition; admin", a.listHeldTools, "hash").adminOnly(),

		list(v1+"/credentials", "List credential metadata (never values)", a.listCredentials, "id"),
		withBody(http.MethodPost, v1+"/credentials", "Create a credential with its secret; admin", http.StatusCreated, a.createCredential).adminOnly(),
		noBody(http.MethodGet, v1+"/credentials/:credential", "Get a credential's metadata by id or label", a.getCredential),
		withBody(http.MethodPatch, v1+"/credentials/:credential", "Change a credential's metadata; admin", http.StatusOK, a.updateCredential).adminOnly(),
		noBody(http.MethodDelete, v1+"/credentials/:credential", "Delete a credential unless a playbook depends on it; says which decks' choices of it fall back, and which services lose it; admin", a.deleteCredential).adminOnly(),
		withBody(http.MethodPost, v1+"/credentials/:credential/rotate", "Replace a credential's secret; admin", http.StatusOK, a.rotateCredential).adminOnly(),

		list(v1+"/playbooks", "List playbooks by title", a.listPlaybooks, "id"),
		withBody(http.MethodPost, v1+"/playbooks", "Create a playbook", http.StatusCreated, a.createPlaybook),
		noBody(http.MethodGet, v1+"/playbooks/:playbook", "Get a playbook by id or title", a.getPlaybook),
		withBody(http.MethodPatch, v1+"/playbooks/:playbook", "Change a playbook (the previous version is kept)", http.StatusOK, a.updatePlaybook),
		noContent(http.MethodDelete, v1+"/playbooks/:playbook", "Delete a playbook and its versions; admin", a.deletePlaybook).adminOnly(),
		list(v1+"/playbooks/:playbook/versions", "A playbook's earlier versions, newest first", a.listPlaybookVersions, "version"),
		noBody(http.MethodPost, v1+"/playbooks/:playbook/versions/:version/restore", "Bring back an earlier version", a.restorePlaybookVersion),
		withBody(http.MethodPost, v1+"/markdown", "Render markdown (CommonMark with GitHub's extensions) as sanitized HTML, for previews; agents read the markdown itself", http.StatusOK, a.previewMarkdown),
		list(v1+"/dependents", "Playbooks that depend on a card", a.listDependents, "id").withQuery(
			cardType, queryParam{name: "card_id", required: true, description: "card id or name"}),

		list(v1+"/tokens", "List API tokens (a member's own); admin", a.listTokens, "id").adminOnly(),
		withBody(http.MethodPost, v1+"/tokens", "Create an API token for the caller or, for the admin role, a person (its secret is shown once); admin", http.StatusCreated, a.createToken).adminOnly(),
		noContent(http.MethodDelete, v1+"/tokens/:token", "Revoke a token (a member's own); admin", a.revokeToken).adminOnly(),

		list(v1+"/sessions", "Live MCP sessions and their bindings (for admins, with the token that opened each)", a.listSessions, "id"),
		noContent(http.MethodDelete, v1+"/sessions/:session", "End a live MCP session: its client must start a new one (revoke the token to keep it out); admin", a.endSession).adminOnly(),
		noBody(http.MethodGet, v1+"/display", "The status line for a workspace (nearest bound ancestor)", a.display).withQuery(
			queryParam{name: "workspace", required: true, description: "absolute workspace path"}),

		noBody(http.MethodGet, v1+"/export", "Export the collection, or one deck with what it links; admin", a.exportBundle).
			withQuery(queryParam{name: "deck", description: "deck id or name; empty exports everything"}).withDocs(nil, bundleDoc).adminOnly(),
		withBody(http.MethodPost, v1+"/export", "Export, selection in the body; admin", http.StatusOK, a.exportSelection).withDocs(nil, bundleDoc).adminOnly(),
		withBody(http.MethodPost, v1+"/import", "Import a bundle in one transaction (or a dry run); admin", http.StatusOK, a.importBundle).
			withQuery(queryParam{name: "dry_run", boolean: true, description: "report without changing anything"}).
			withLimit(a.opts.MaxImportBytes).withDocs(bundleDoc, nil).adminOnly(),

		noBody(http.MethodPost, v1+"/dashboard/signin-codes", "A one-time dashboard sign-in code (valid 2 minutes) for the caller, or for ?person= (admin role); admin", a.createSignInCode).
			withQuery(queryParam{name: "person", description: "the person (name or id) the code signs in; admin"}).adminOnly(),
		withBody(http.MethodPost, v1+"/dashboard/session", "Exchange a one-time sign-in code for a dashboard session cookie", http.StatusCreated, a.signIn).withPublic(),
		noBody(http.MethodGet, v1+"/dashboard/session", "The dashboard session of the cookie, with its CSRF token", a.dashboardSession),
		noContent(http.MethodDelete, v1+"/dashboard/session", "Sign the dashboard out (revokes the cookie's session)", a.signOut),

		withBody(http.MethodPost, v1+"/exec", "Resolve credential secrets for `agent-deck exec` and open an audit row; admin", http.StatusCreated, a.startExec).adminOnly(),
		bodyNoContent(http.MethodPost, v1+"/exec/:exec/finish", "Record the exit code of an exec; admin", a.finishExec).adminOnly(),
		list(v1+"/exec", "The exec audit trail; admin", a.listExecAudits, "id").adminOnly(),

		list(v1+"/proposals", "Playbook change proposals agents made, newest first; admin", a.listProposals, "id").
			withQuery(queryParam{name: "status", description: "open, accepted, rejected, stale or superseded", enum: proposalStatusNames()},
				queryParam{name: "playbook", description: "playbook id or title"},
				queryParam{name: "deck", description: "deck id or name"}).adminOnly(),
		noBody(http.MethodGet, v1+"/proposals/:proposal", "A proposal with a preview against the current playbook: unified diff, triggers before and after, conflicts; admin", a.showProposal).withETag().adminOnly(),
		noBody(http.MethodPost, v1+"/proposals/:proposal/accept", "Apply a proposal to the current playbook in one transaction; ops that no longer apply make it stale (409, nothing changed); admin", a.acceptProposal).adminOnly(),
		withBody(http.MethodPost, v1+"/proposals/:proposal/reject", "Reject a proposal with an optional reason; its signals reopen; admin", http.StatusOK, a.rejectProposal).adminOnly(),
		list(v1+"/signals", "Feedback signals agents recorded, newest first; admin", a.listSignals, "id").adminOnly(),
		withBody(http.MethodPost, v1+"/signals/discard", "Discard feedback signals, all or none; admin", http.StatusOK, a.discardSignals).adminOnly(),
		withBody(http.MethodPost, v1+"/signals/import", "Record feedback signals in bulk, all or none; admin", http.StatusCreated, a.importSignals).adminOnly(),
		list(v1+"/playbook-usage", "How often agents fetched each playbook within the fetch retention; admin", a.playbookUsage, "playbook_id").adminOnly(),
		withBody(http.MethodPut, v1+"/decks/:deck/services/:service/sampling", "Allow or forbid a service on the deck to ask the agent's model for completions (MCP sampling; off by default); admin", http.StatusOK, a.setDeckSampling).adminOnly(),
		noBody(http.MethodGet, v1+"/decks/:deck/services/:service/sampling", "Whether a service on the deck may ask the agent's model for completions (MCP sampling); admin", a.getDeckSampling).adminOnly(),
		noBody(http.MethodGet, v1+"/tool-calls", "The tool-call audit trail, newest first, filtered and paged; admin", a.listToolCalls).
			withQuery(toolCallQueryParams...).withLinkNext().adminOnly(),
		noBody(http.MethodGet, v1+"/decks/:deck/projection", "The deck's projected tools: whether bound sessions list its downstream tools as tools of their own, the caps, and what it projects now; admin", a.getDeckProjection).adminOnly(),
		withBody(http.MethodPut, v1+"/decks/:deck/projection", "Turn the deck's projected tools on (with a cap of tools and of tokens) or off; admin", http.StatusOK, a.setDeckProjection).adminOnly(),
		noBody(http.MethodGet, v1+"/tool-calls/:call", "One entry of the tool-call audit trail; admin", a.getToolCall).adminOnly(),
		noBody(http.MethodGet, v1+"/tool-call-stats", "Calls, failures and latency (median, 95th percentile) per service or tool and time bucket, from the audit trail; admin", a.toolCallStats).
			withQuery(toolCallStatsParams...).adminOnly(),
		noBody(http.MethodGet, v1+"/decks/:deck/audit", "Whether calls through the deck keep their (redacted) arguments; admin", a.getDeckArgumentCapture).adminOnly(),
		noBody(http.MethodGet, v1+"/decks/:deck/limits", "The rate limits of calls to the deck's services, and where each comes from", a.getDeckLimits),
		withBody(http.MethodPut, v1+"/decks/:deck/limits", "Override the rate limits of calls to every service of the deck (null inherits, 0 is no limit); admin", http.StatusOK, a.setDeckLimits).adminOnly(),
		noBody(http.MethodGet, v1+"/decks/:deck/services/:service/limits", "The rate limits of calls to a service through the deck, and where each comes from", a.getDeckServiceLimits),
		withBody(http.MethodPut, v1+"/decks/:deck/services/:service/limits", "Override the rate limits of calls to a service through the deck (null inherits, 0 is no limit); admin", http.StatusOK, a.setDeckServiceLimits).adminOnly(),
		noBody(http.MethodGet, v1+"/services/:service/limits", "The rate limits of calls to a service through any deck, and where each comes from", a.getServiceLimits),
		withBody(http.MethodPut, v1+"/services/:service/limits", "Override the rate limits of calls to a service through every deck (null inherits, 0 is no limit); admin", http.StatusOK, a.setServiceLimits).adminOnly(),
		noBody(http.MethodGet, v1+"/decks/:deck/playbook-review", "Whether agent tokens' playbook writes on the deck are held for review (the deck's own setting or the server's default)", a.getDeckPlaybookReview),
		withBody(http.MethodPut, v1+"/decks/:deck/playbook-review", "Hold agent tokens' playbook writes on the deck for review (true), let them take effect (false), or follow the server's default (null); admin", http.StatusOK, a.setDeckPlaybookReview).adminOnly(),
		withBody(http.MethodPut, v1+"/decks/:deck/audit", "Turn argument capture on or off for calls through the deck (arguments are redacted); admin", http.StatusOK, a.setDeckArgumentCapture).adminOnly(),
	}
	table = append(table, a.peopleRoutes()...)
	table = append(table, a.oidcRoutes()...)
	table = append(table, a.authServerRoutes()...)
	table = append(table, a.oauthRoutes()...)
	if a.opts.Info != nil {
		table = append(table, noBody(http.MethodGet, v1+"/info", "What this server is: address, database, profile", a.info).
			withDocs(nil, infoDoc))
	}
	if a.opts.Metrics != nil {
		table = append(table, metricsRoute(a.opts.Metrics))
	}
	if a.opts.Pprof != nil {
		table = append(table, pprofRoutes(a.opts.Pprof)...)
	}
	return table
}

// pprofRoutes serve the Go runtime profiles (serve --pprof) to admin tokens: a profile shows
// the process's memory, command line and call paths, so no agent may read one.
func pprofRoutes(h http.Handler) []route {
	doc := map[string]any{"type": "string", "format": "binary",
		"description": "A Go runtime profile (net/http/pprof); ?seconds= sets the CPU profile's length."}
	serve := gin.WrapH(h)
	return []route{
		{method: http.MethodGet, path: "/debug/pprof/", summary: "Index of the Go runtime profiles; admin",
			op: "pprofIndex", status: http.StatusOK, responseDoc: doc, contentType: "text/html",
			scope: backend.ScopeAdmin, serve: serve},
		{method: http.MethodGet, path: "/debug/pprof/:profile", summary: "One Go runtime profile; admin",
			op: "pprofProfile", status: http.StatusOK, responseDoc: doc, contentType: "application/octet-stream",
			scope: backend.ScopeAdmin, serve: serve},
	}
}

// metricsRoute serves the composition root's metrics handler behind bearer auth.
func metricsRoute(h http.Handler) route {
	return route{
		method: http.MethodGet, path: "/metrics", summary: "Metrics", op: "metrics",
		status: http.StatusOK, responseDoc: metricsDoc, contentType: "text/plain",
		serve: gin.WrapH(h),
	}
}
