package mcptools

import (
	"context"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

var pCardType = Param{Name: "card_type", Type: TString, Enum: backend.CardTypeNames()}

// serviceFields are the optional service settings register_service and update_service share;
// register_service describes them, update_service refers to it.
func serviceFields(describe bool) []Param {
	desc := func(s string) string {
		if describe {
			return s
		}
		return ""
	}
	return []Param{
		{Name: "url", Type: TString, Desc: desc("Remote server URL (type mcp)")},
		{Name: "description", Type: TString},
		{Name: "headers", Type: TStrMap},
		{Name: "credentialId", Type: TString, Desc: desc("Linked API key (admin only)")},
		{Name: "localCommand", Type: TString, Desc: desc("Command (type local-mcp, admin only)")},
		{Name: "localArgs", Type: TStrings},
		{Name: "localWorkingDir", Type: TString},
		{Name: "localEnv", Type: TStrMap},
		{Name: "pinTools", Type: TBool, Desc: desc("Hold changed tools for approval; false is admin only")},
	}
}

var pAddToDeck = Param{Name: "add_to_bound_deck", Type: TBool, Desc: "Default true when bound"}

func editingTools() []ToolSpec {
	cardType := pCardType
	cardType.Required = true
	return []ToolSpec{
		{Name: "manage_deck_card", Tier: TierEditing, Access: Write, Destructive: true, Idempotent: true,
			Description: "Link an existing collection card to the bound deck, unlink it (it stays in the collection), " +
				"or reorder one card type. link/unlink need card_id; reorder needs ordered_card_ids (all of that type).",
			Params: []Param{{Name: "action", Type: TString, Required: true, Enum: core.DeckCardActions},
				cardType, {Name: "card_id", Type: TString, Desc: "Card id or name"},
				{Name: "position", Type: TInt, Desc: "0-based slot for link"},
				{Name: "ordered_card_ids", Type: TStrings}},
			run: runManageDeckCard},
		{Name: "list_collection", Tier: TierEditing, Access: Read,
			Description: "List all cards in the collection (metadata, no secrets), e.g. to find ids for manage_deck_card.",
			Params:      []Param{pCardType}, run: runListCollection},
		{Name: "create_deck", Tier: TierEditing, Access: Write,
			Description: "Create an empty deck; then bind to it and link or register cards.",
			Params:      []Param{{Name: "name", Type: TString, Required: true}}, run: runCreateDeck},
		{Name: "register_service", Tier: TierEditing, Access: Write,
			Description: "Add a downstream MCP server to the collection (and the bound deck). " +
				"Type mcp needs url; local-mcp needs localCommand.",
			Params: append(append([]Param{{Name: "name", Type: TString, Required: true},
				{Name: "type", Type: TString, Required: true, Enum: []string{string(backend.ServiceRemote),
					string(backend.ServiceLocal)}}}, serviceFields(true)...),
				pAddToDeck, Param{Name: "position", Type: TInt}),
			run: runRegisterService},
		{Name: "update_service", Tier: TierEditing, Access: Write, Destructive: true, Idempotent: true,
			Description: "Change a service's settings (fields as in register_service); only those passed change.",
			Params: append([]Param{{Name: "service_id", Type: TString, Required: true},
				{Name: "name", Type: TString}}, serviceFields(false)...),
			run: runUpdateService},
		{Name: "update_service_tool_settings", Tier: TierEditing, Access: Write, Idempotent: true,
			Description: "Hide some of a service's tools from agents; disabled_tools is the full list ([] shows all).",
			Params: []Param{{Name: "service_id", Type: TString, Required: true},
				{Name: "disabled_tools", Type: TStrings, Required: true}},
			run: runToolSettings},
		{Name: "register_playbook", Tier: TierEditing, Access: Write,
			Description: "Save a markdown runbook with trigger phrases, on the bound deck by default. " +
				"Dependencies on keys and services are detected from the text.",
			Params: append(append([]Param{{Name: "title", Type: TString, Required: true},
				{Name: "body", Type: TString, Required: true}, {Name: "triggers", Type: TStrings},
				{Name: "playbook_id", Type: TString, Desc: "Default pb_<slug of title>"}}, playbookFields()...),
				pAddToDeck, pAutoDetect),
			run: runRegisterPlaybook},
	}
}

func runManageDeckCard(ctx context.Context, c *call) (any, error) {
	return c.svc.ManageBoundDeckCard(ctx, c.sessionID, core.DeckCardChange{
		Action:         c.str("action"),
		CardType:       backend.CardType(c.str("card_type")),
		CardID:         c.str("card_id"),
		Position:       c.optInt("position"),
		OrderedCardIDs: c.strs("ordered_card_ids"),
	})
}

func runListCollection(ctx context.Context, c *call) (any, error) {
	return c.svc.ListCollection(ctx, backend.CardType(c.str("card_type")))
}

func runCreateDeck(ctx context.Context, c *call) (any, error) {
	return c.svc.CreateDeck(ctx, core.DeckInput{Name: c.str("name")})
}

func runRegisterService(ctx context.Context, c *call) (any, error) {
	return c.svc.RegisterService(ctx, c.sessionID, core.RegisterServiceInput{
		ServiceInput: core.ServiceInput{
			Name:            c.str("name"),
			Type:            backend.ServiceType(c.str("type")),
			URL:             c.str("url"),
			Description:     c.str("description"),
			Headers:         c.strMap("headers"),
			CredentialID:    c.str("credentialId"),
			LocalCommand:    c.str("localCommand"),
			LocalArgs:       c.strs("localArgs"),
			LocalWorkingDir: c.str("localWorkingDir"),
			LocalEnv:        c.strMap("localEnv"),
			PinTools:        c.optBool("pinTools"),
		},
		AddToBoundDeck: c.optBool("add_to_bound_deck"),
		Position:       c.optInt("position"),
	})
}

func runUpdateService(ctx context.Context, c *call) (any, error) {
	return c.svc.UpdateService(ctx, c.str("service_id"), core.ServicePatch{
		Name:            c.optStr("name"),
		URL:             c.optStr("url"),
		Description:     c.optStr("description"),
		Headers:         c.optStrMap("headers"),
		CredentialID:    c.optStr("credentialId"),
		LocalCommand:    c.optStr("localCommand"),
		LocalArgs:       c.optStrs("localArgs"),
		LocalWorkingDir: c.optStr("localWorkingDir"),
		LocalEnv:        c.optStrMap("localEnv"),
		PinTools:        c.optBool("pinTools"),
	})
}

func runToolSettings(ctx context.Context, c *call) (any, error) {
	return c.svc.UpdateServiceToolSettings(ctx, c.str("service_id"), core.ToolSettingsInput{
		DisabledTools: c.strs("disabled_tools")})
}

func runRegisterPlaybook(ctx context.Context, c *call) (any, error) {
	return c.svc.RegisterPlaybook(ctx, c.sessionID, core.RegisterPlaybookInput{
		PlaybookInput: backend.PlaybookInput{
			Title:                  c.str("title"),
			Body:                   c.str("body"),
			Triggers:               c.strs("triggers"),
			ID:                     c.str("playbook_id"),
			Exec:                   c.str("exec"),
			Skill:                  c.str("skill"),
			DependsOnCredentialIDs: c.strs("depends_on_credential_ids"),
			DependsOnServiceIDs:    c.strs("depends_on_service_ids"),
			AutoDetectDependencies: c.optBool("auto_detect_dependencies"),
		},
		AddToBoundDeck: c.optBool("add_to_bound_deck"),
	})
}
