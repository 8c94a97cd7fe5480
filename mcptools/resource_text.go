package mcptools

// ResourceInstructions is what initialize tells an agent on the resource profile: the tool
// names are the resources, so the hot path needs fewer words.
const ResourceInstructions = `Agent Deck gives this chat one deck of MCP services, API keys and playbooks. Each tool is a resource; the verb is its action, the payload goes under fields.
1. session action bind (id: deck, fields.workspaceRoot) once per chat; tell the user its display_summary once.
2. deck action get shows the deck; check it before saying a tool is missing. service actions tools and call reach a service's tools; search finds a tool among all services.
3. When a task matches a playbook's triggers, playbook action get, and follow it.`

// instructionsFor is the initialize text for a profile.
func instructionsFor(p Profile) string {
	if p == ProfileResource {
		return ResourceInstructions
	}
	return Instructions
}
