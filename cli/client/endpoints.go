package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// ListDecks returns every deck.
func (c *Client) ListDecks(ctx context.Context) ([]backend.Deck, error) {
	return listAll[backend.Deck](ctx, c, "/decks", nil)
}

// GetDeck returns a deck (id or name) with its cards in order.
func (c *Client) GetDeck(ctx context.Context, ref string) (core.DeckSnapshot, error) {
	var out core.DeckSnapshot
	return out, c.Do(ctx, http.MethodGet, "/decks/"+esc(ref)+"/snapshot", nil, nil, &out)
}

// CreateDeck makes an empty deck.
func (c *Client) CreateDeck(ctx context.Context, in core.DeckInput) (backend.Deck, error) {
	var out backend.Deck
	return out, c.Do(ctx, http.MethodPost, "/decks", nil, in, &out)
}

// DeleteDeck removes a deck; its cards stay in the collection.
func (c *Client) DeleteDeck(ctx context.Context, ref string) error {
	return c.Do(ctx, http.MethodDelete, "/decks/"+esc(ref), nil, nil, nil)
}

// ListServices returns every service card, secrets masked.
func (c *Client) ListServices(ctx context.Context) ([]backend.ServiceCard, error) {
	return listAll[backend.ServiceCard](ctx, c, "/services", nil)
}

// GetService returns one service card by id or name.
func (c *Client) GetService(ctx context.Context, ref string) (backend.ServiceCard, error) {
	var out backend.ServiceCard
	return out, c.Do(ctx, http.MethodGet, "/services/"+esc(ref), nil, nil, &out)
}

// DeleteService removes a service unless a playbook depends on it.
func (c *Client) DeleteService(ctx context.Context, ref string) error {
	return c.Do(ctx, http.MethodDelete, "/services/"+esc(ref), nil, nil, nil)
}

// ListPlaybooks returns every playbook.
func (c *Client) ListPlaybooks(ctx context.Context) ([]backend.Playbook, error) {
	return listAll[backend.Playbook](ctx, c, "/playbooks", nil)
}

// GetPlaybook returns one playbook by id or title.
func (c *Client) GetPlaybook(ctx context.Context, ref string) (backend.Playbook, error) {
	var out backend.Playbook
	return out, c.Do(ctx, http.MethodGet, "/playbooks/"+esc(ref), nil, nil, &out)
}

// DeletePlaybook removes a playbook and its versions.
func (c *Client) DeletePlaybook(ctx context.Context, ref string) error {
	return c.Do(ctx, http.MethodDelete, "/playbooks/"+esc(ref), nil, nil, nil)
}

// ListCredentials returns every credential's metadata.
func (c *Client) ListCredentials(ctx context.Context) ([]backend.Credential, error) {
	return listAll[backend.Credential](ctx, c, "/credentials", nil)
}

// GetCredential returns one credential's metadata by id or label.
func (c *Client) GetCredential(ctx context.Context, ref string) (backend.Credential, error) {
	var out backend.Credential
	return out, c.Do(ctx, http.MethodGet, "/credentials/"+esc(ref), nil, nil, &out)
}

// CreateCredential stores a credential with its secret.
func (c *Client) CreateCredential(ctx context.Context, in core.CredentialInput) (backend.Credential, error) {
	var out backend.Credential
	return out, c.Do(ctx, http.MethodPost, "/credentials", nil, in, &out)
}

// RotateCredential replaces a credential's secret.
func (c *Client) RotateCredential(ctx context.Context, ref, value string) (backend.Credential, error) {
	var out backend.Credential
	in := struct {
		Value string `json:"value"`
	}{value}
	return out, c.Do(ctx, http.MethodPost, "/credentials/"+esc(ref)+"/rotate", nil, in, &out)
}

// DeleteCredential removes a credential unless a playbook depends on it, and says which
// decks' choices of it fall back and which services lose it.
func (c *Client) DeleteCredential(ctx context.Context, ref string) (core.CredentialDeletion, error) {
	var out core.CredentialDeletion
	return out, c.Do(ctx, http.MethodDelete, "/credentials/"+esc(ref), nil, nil, &out)
}

// CreateToken makes an API token; its secret is in the answer once.
func (c *Client) CreateToken(ctx context.Context, in core.TokenInput) (core.NewToken, error) {
	var out core.NewToken
	return out, c.Do(ctx, http.MethodPost, "/tokens", nil, in, &out)
}

// ListTokens returns every token's metadata.
func (c *Client) ListTokens(ctx context.Context) ([]backend.Token, error) {
	return listAll[backend.Token](ctx, c, "/tokens", nil)
}

// RevokeToken stops a token from working.
func (c *Client) RevokeToken(ctx context.Context, id string) error {
	return c.Do(ctx, http.MethodDelete, "/tokens/"+esc(id), nil, nil, nil)
}

// ListSessions returns the live MCP sessions and their bindings.
func (c *Client) ListSessions(ctx context.Context) ([]backend.MCPSession, error) {
	return listAll[backend.MCPSession](ctx, c, "/sessions", nil)
}

// Display returns the status line for a workspace path.
func (c *Client) Display(ctx context.Context, workspace string) (core.DisplayLine, error) {
	var out core.DisplayLine
	return out, c.Do(ctx, http.MethodGet, "/display", url.Values{"workspace": {workspace}}, nil, &out)
}

// Export returns the bundle of the whole collection, or of one deck.
func (c *Client) Export(ctx context.Context, deck string) (json.RawMessage, error) {
	var out json.RawMessage
	var q url.Values
	if deck != "" {
		q = url.Values{"deck": {deck}}
	}
	return out, c.Do(ctx, http.MethodGet, "/export", q, nil, &out)
}

// Import applies a bundle (or, with dryRun, reports what it would do).
func (c *Client) Import(ctx context.Context, bundle json.RawMessage, dryRun bool) (core.ImportReport, error) {
	var out core.ImportReport
	q := url.Values{"dry_run": {strconv.FormatBool(dryRun)}}
	return out, c.Do(ctx, http.MethodPost, "/import", q, bundle, &out)
}

// StartExec resolves credential secrets for a command and records the audit row.
func (c *Client) StartExec(ctx context.Context, in core.ExecInput) (core.ExecGrant, error) {
	var out core.ExecGrant
	return out, c.Do(ctx, http.MethodPost, "/exec", nil, in, &out)
}

// FinishExec records how an exec'd command ended.
func (c *Client) FinishExec(ctx context.Context, auditID int64, in core.ExecFinish) error {
	return c.Do(ctx, http.MethodPost, "/exec/"+strconv.FormatInt(auditID, 10)+"/finish", nil, in, nil)
}

// Info describes the running server (address, database, profile); older servers may not
// answer it.
func (c *Client) Info(ctx context.Context) (map[string]any, error) {
	var out map[string]any
	return out, c.Do(ctx, http.MethodGet, "/info", nil, nil, &out)
}

// ApproveServiceTools pins the current definitions of a service's held tools (all when none is
// named).
func (c *Client) ApproveServiceTools(ctx context.Context, ref string, in core.ApproveToolsInput) (core.ToolApprovals, error) {
	var out core.ToolApprovals
	return out, c.Do(ctx, http.MethodPost, "/services/"+esc(ref)+"/approve", nil, in, &out)
}

// SetToolOverride sets (or, empty, clears) what agents see of one tool of a service.
func (c *Client) SetToolOverride(ctx context.Context, ref, tool string, in backend.ToolOverride) (backend.ServiceCard, error) {
	var out backend.ServiceCard
	return out, c.Do(ctx, http.MethodPut, "/services/"+esc(ref)+"/tools/"+esc(tool)+"/override", nil, in, &out)
}

// ListHeldTools returns the held definitions every connection to the service saw.
func (c *Client) ListHeldTools(ctx context.Context, ref string) ([]core.HeldTool, error) {
	var out []core.HeldTool
	return out, c.Do(ctx, http.MethodGet, "/services/"+esc(ref)+"/held", nil, nil, &out)
}

// CreateService registers a downstream MCP server.
func (c *Client) CreateService(ctx context.Context, in core.ServiceInput) (backend.ServiceCard, error) {
	var out backend.ServiceCard
	return out, c.Do(ctx, http.MethodPost, "/services", nil, in, &out)
}

// UpdateService changes the fields of a service that the patch sets.
func (c *Client) UpdateService(ctx context.Context, ref string, in core.ServicePatch) (backend.ServiceCard, error) {
	var out backend.ServiceCard
	return out, c.Do(ctx, http.MethodPatch, "/services/"+esc(ref), nil, in, &out)
}

// ListServiceTools returns a service's downstream tools with their enabled and held flags.
func (c *Client) ListServiceTools(ctx context.Context, ref string) ([]core.ToolInfo, error) {
	var out []core.ToolInfo
	return out, c.Do(ctx, http.MethodGet, "/services/"+esc(ref)+"/tools", nil, nil, &out)
}

// SetDisabledTools replaces a service's disabled tools.
func (c *Client) SetDisabledTools(ctx context.Context, ref string, names []string) (core.ToolSettingsResult, error) {
	var out core.ToolSettingsResult
	if names == nil {
		names = []string{}
	}
	in := core.ToolSettingsInput{DisabledTools: names}
	return out, c.Do(ctx, http.MethodPut, "/services/"+esc(ref)+"/tool-settings", nil, in, &out)
}

// CheckService reaches a service now and returns its refreshed health.
func (c *Client) CheckService(ctx context.Context, ref string) (backend.Health, error) {
	var out backend.Health
	return out, c.Do(ctx, http.MethodPost, "/services/"+esc(ref)+"/check", nil, nil, &out)
}

// LinkCard links a card to a deck (last of its type).
func (c *Client) LinkCard(ctx context.Context, deck string, ref core.CardRef) (core.CardsResult, error) {
	var out core.CardsResult
	return out, c.Do(ctx, http.MethodPost, "/decks/"+esc(deck)+"/cards", nil, core.LinkCardInput{CardRef: ref}, &out)
}

// DeckServiceSettings reads a deck's rules for a service it links.
func (c *Client) DeckServiceSettings(ctx context.Context, deck, service string) (core.DeckServiceSettingsResult, error) {
	var out core.DeckServiceSettingsResult
	return out, c.Do(ctx, http.MethodGet, "/decks/"+esc(deck)+"/services/"+esc(service)+"/settings", nil, nil, &out)
}

// UpdateDeckServiceSettings changes a deck's rules for a service it links.
func (c *Client) UpdateDeckServiceSettings(ctx context.Context, deck, service string, in core.DeckServiceSettingsInput) (core.DeckServiceSettingsResult, error) {
	var out core.DeckServiceSettingsResult
	return out, c.Do(ctx, http.MethodPatch, "/decks/"+esc(deck)+"/services/"+esc(service)+"/settings", nil, in, &out)
}

// RenameDeck gives a deck a new name.
func (c *Client) RenameDeck(ctx context.Context, ref, name string) (backend.Deck, error) {
	var out backend.Deck
	return out, c.Do(ctx, http.MethodPatch, "/decks/"+esc(ref), nil, core.DeckInput{Name: name}, &out)
}

// CreatePlaybook stores a new playbook.
func (c *Client) CreatePlaybook(ctx context.Context, in backend.PlaybookInput) (core.PlaybookResult, error) {
	var out core.PlaybookResult
	return out, c.Do(ctx, http.MethodPost, "/playbooks", nil, in, &out)
}

// UpdatePlaybook changes the fields set in patch (the previous version is kept).
func (c *Client) UpdatePlaybook(ctx context.Context, ref string, patch core.PlaybookPatch) (core.PlaybookResult, error) {
	var out core.PlaybookResult
	return out, c.Do(ctx, http.MethodPatch, "/playbooks/"+esc(ref), nil, patch, &out)
}
