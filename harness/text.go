package harness

import (
	"slices"
	"strings"
)

// harnessRules are the lines of the instruction text; a rule is included only when every tool it
// names is one the client's profile has, so an agent is never told to call a tool it cannot see.
var harnessRules = []struct {
	text  string
	tools []string
}{
	{"**Session opener.** At the start of a session call `bind_workspace` with this workspace's " +
		"root (and `deckId` from `.agent-deck/use.json` when that file exists), then tell the user " +
		"the returned `display_summary` line once, verbatim.", []string{"bind_workspace"}},
	{"**Capability rescue.** Before saying a tool, server or API key is missing, call " +
		"`get_bound_deck`: the deck's MCP servers are reached through `list_service_tools` and " +
		"`call_service_tool`, not as tools of their own.",
		[]string{"get_bound_deck", "list_service_tools", "call_service_tool"}},
	{"**Playbooks first.** When a request matches a playbook's title or triggers in " +
		"`get_bound_deck`, read it with `get_playbook` and follow it before improvising; when the " +
		"user corrects you or you find a better way, suggest the fix with `propose_playbook_patch` " +
		"(a person reviews it); use `update_playbook` only for a change the user asked for.",
		[]string{"get_bound_deck", "get_playbook", "propose_playbook_patch", "update_playbook"}},
	{"When a procedure you repeat has no playbook, save it with `register_playbook`; link existing " +
		"cards to the deck with `manage_deck_card`.", []string{"register_playbook", "manage_deck_card"}},
	{"**Secrets.** API key values never pass through you: the deck adds them to the calls it " +
		"makes. Never ask for or print one; a person sets them with `agent-deck credential add`.", nil},
}

// resourceRules are the resource profile's lines: its tools are the resources, the verb an
// action. No profile has both these tools and the ones harnessRules name.
var resourceRules = []struct {
	text  string
	tools []string
}{
	{"**Session opener.** At the start of a session call `session` with action `bind`, `id` the deck " +
		"(`deckId` from `.agent-deck/use.json` when that file exists) and `fields.workspaceRoot` this " +
		"workspace's root, then tell the user the returned `display_summary` line once, verbatim.",
		[]string{"session"}},
	{"**Capability rescue.** Before saying a tool, server or API key is missing, call `deck` action " +
		"`get`: the deck's MCP servers are reached through `service` actions `tools` and `call`, not " +
		"as tools of their own.", []string{"deck", "service"}},
	{"**Playbooks first.** When a request matches a playbook's title or triggers in `deck` action " +
		"`get`, read it with `playbook` action `get` and follow it before improvising; when you find " +
		"a better way, fix it with `playbook` action `update`. Save a repeated procedure with " +
		"action `register`.", []string{"deck", "playbook"}},
}

// Text is the harness text for a client whose profile has tools: short, specific, and naming
// only those tools. The tool names come from the MCP tool registry (cli passes them in), so the
// harness keeps no list of its own.
func Text(tools []string) string {
	var b strings.Builder
	b.WriteString("## Agent Deck\n\n")
	b.WriteString("MCP servers, API keys and playbooks for this work come from the `agent-deck` MCP server.\n\n")
	for _, r := range append(slices.Clone(resourceRules), harnessRules...) {
		if containsAll(tools, r.tools) {
			b.WriteString("- " + r.text + "\n")
		}
	}
	return b.String()
}

func containsAll(have, need []string) bool {
	for _, n := range need {
		if !slices.Contains(have, n) {
			return false
		}
	}
	return true
}
