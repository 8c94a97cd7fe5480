package mcptools

import (
	"context"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// Parameters shared by several tools.
var (
	pDeckID   = Param{Name: "deckId", Type: TString, Required: true, Desc: "Deck id or exact name"}
	pPlaybook = Param{Name: "playbook_id", Type: TString, Required: true, Desc: "Playbook id or title"}
	pService  = Param{Name: "serviceId", Type: TString, Required: true, Desc: "Service id or name"}
)

// casingNote says once, on the tool every chat starts with, which parameter spelling is
// canonical (args.go: respell).
const casingNote = "Use parameter names as listed; their other casing is a deprecated alias."

// playbookFields are the optional playbook fields update_playbook and register_playbook share.
func playbookFields() []Param {
	return []Param{
		{Name: "exec", Type: TString},
		{Name: "skill", Type: TString},
		{Name: "depends_on_credential_ids", Type: TStrings},
		{Name: "depends_on_service_ids", Type: TStrings},
	}
}

var pAutoDetect = Param{Name: "auto_detect_dependencies", Type: TBool,
	Desc: "Default true"}

func runtimeTools() []ToolSpec {
	return []ToolSpec{
		{Name: "bind_workspace", Tier: TierRuntime, Access: Read,
			Description: "Start of every chat: bind this session to the project folder and a deck (get_decks lists them). " +
				"Returns display_summary: tell it to the user once. " + casingNote,
			Params: []Param{{Name: "workspaceRoot", Type: TString, Required: true, Desc: "Absolute project path"}, pDeckID},
			run:    runBind},
		{Name: "switch_bound_deck", Tier: TierRuntime, Access: Read,
			Description: "Move this session to another deck, keeping its workspace.",
			Params:      []Param{pDeckID}, run: runSwitch},
		{Name: "get_session_binding", Tier: TierRuntime, Access: Read,
			Description: "This session's workspace, deck, badge and display_summary; bound=false means call bind_workspace.",
			run:         runBinding},
		{Name: "get_decks", Tier: TierRuntime, Access: Read,
			Description: "List decks to pick one for bind_workspace: name, card counts, services, playbook titles.", run: runDecks},
		{Name: "get_bound_deck", Tier: TierRuntime, Access: Read,
			Description: "The bound deck: services (health, tool count), API key metadata, " +
				"playbooks (id, title, triggers), display_summary. Check it before saying a tool or key is missing.",
			Params: []Param{pCardType, {Name: "query", Type: TString, Desc: "Words to match"},
				{Name: "cursor", Type: TString, Desc: "more.cursor"}},
			run: runBoundDeck},
		{Name: "get_playbook", Tier: TierRuntime, Access: Read,
			Description: "Read a playbook's markdown body and open proposals. Use when the task matches its triggers, then follow it.",
			Params:      []Param{pPlaybook}, run: runGetPlaybook},
		{Name: "update_playbook", Tier: TierRuntime, Access: Write, Idempotent: true,
			Description: "Change a playbook as a person asked; only fields passed change. Own fixes: propose_playbook_patch.",
			Params: append([]Param{pPlaybook, {Name: "title", Type: TString}, {Name: "body", Type: TString},
				{Name: "triggers", Type: TStrings}}, append(playbookFields(), pAutoDetect)...),
			run: runUpdatePlaybook},
		proposeTool(),
		{Name: "list_service_tools", Tier: TierRuntime, Access: Read,
			Description: "List a bound-deck service's tools with their input schemas, before call_service_tool.",
			Params:      []Param{pService}, run: runListServiceTools},
		{Name: "call_service_tool", Tier: TierRuntime, Access: Proxy, Destructive: true,
			Description: "Call a tool of a service on the bound deck; the deck supplies its credentials. " +
				"Returns the tool's own result.",
			Params: []Param{pService, {Name: "toolName", Type: TString, Required: true},
				{Name: "arguments", Type: TObjOrStr, Desc: "Tool arguments"}},
			run: runCallServiceTool},
	}
}

func runBind(ctx context.Context, c *call) (any, error) {
	return inProfile(ctx)(c.svc.BindWorkspace(ctx, c.sessionID, core.BindInput{
		WorkspaceRoot: c.str("workspaceRoot"), Deck: c.str("deckId")}))
}

func runSwitch(ctx context.Context, c *call) (any, error) {
	return inProfile(ctx)(c.svc.SwitchBoundDeck(ctx, c.sessionID, c.str("deckId")))
}

func runBinding(ctx context.Context, c *call) (any, error) {
	return inProfile(ctx)(c.svc.SessionBinding(ctx, c.sessionID))
}

// inProfile reports a binding with the profile this request is served with: the session's,
// or the other shape of its size that the connection asked for (standard and resource).
func inProfile(ctx context.Context) func(core.Binding, error) (any, error) {
	return func(b core.Binding, err error) (any, error) {
		if err != nil {
			return nil, err
		}
		if st := stateFrom(ctx); st != nil {
			b.Profile = string(st.effectiveProfile())
		}
		return b, nil
	}
}

func runDecks(ctx context.Context, c *call) (any, error) {
	return c.svc.DeckChoices(ctx)
}

func runBoundDeck(ctx context.Context, c *call) (any, error) {
	return c.svc.BoundDeck(ctx, c.sessionID, core.DeckPageInput{CardType: backend.CardType(c.str("card_type")),
		Query: c.str("query"), Cursor: c.str("cursor")})
}

func runGetPlaybook(ctx context.Context, c *call) (any, error) {
	return c.svc.BoundPlaybook(ctx, c.sessionID, c.str("playbook_id"))
}

func runUpdatePlaybook(ctx context.Context, c *call) (any, error) {
	return c.svc.UpdateBoundPlaybook(ctx, c.sessionID, c.str("playbook_id"), core.PlaybookPatch{
		Title:                  c.optStr("title"),
		Body:                   c.optStr("body"),
		Triggers:               c.optStrs("triggers"),
		Exec:                   c.optStr("exec"),
		Skill:                  c.optStr("skill"),
		DependsOnCredentialIDs: c.optStrs("depends_on_credential_ids"),
		DependsOnServiceIDs:    c.optStrs("depends_on_service_ids"),
		AutoDetectDependencies: c.optBool("auto_detect_dependencies"),
	})
}

func runListServiceTools(ctx context.Context, c *call) (any, error) {
	return c.svc.BoundServiceTools(ctx, c.sessionID, c.str("serviceId"))
}

func runCallServiceTool(ctx context.Context, c *call) (any, error) {
	res, err := c.svc.CallBoundServiceTool(ctx, c.sessionID, c.str("serviceId"), core.CallInput{
		ToolName: c.str("toolName"), Arguments: c.raw("arguments")})
	if err != nil {
		return nil, err
	}
	return passThrough(res)
}
