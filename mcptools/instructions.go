package mcptools

// Instructions is what the server tells agents at initialize: the hot path, in a few lines.
const Instructions = `Agent Deck gives this chat one deck of MCP services, API keys and playbooks.
1. bind_workspace(workspaceRoot, deckId) once per chat (get_decks lists decks); tell the user its display_summary once.
2. get_bound_deck shows the deck's services, keys and playbooks; check it before saying a tool is missing.
3. call_service_tool(serviceId, toolName, arguments) reaches a service's tools; list_service_tools shows them, or with query finds a tool among all services.
4. When a task matches a playbook's triggers, get_playbook and follow it.`
