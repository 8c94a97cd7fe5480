package harness

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// StubMarker is in every stub file Agent Deck writes; a file without it is never touched.
const StubMarker = "<!-- agent-deck:stub -->"

// stubHost is where one client discovers skills or rules, and how a stub for it reads.
type stubHost struct {
	client string
	// dir holds the stubs (project-relative); pattern matches existing ones for removal.
	dir, pattern string
	path         func(p backend.PlaybookSummary) string
	render       func(p backend.PlaybookSummary, desc string) string
}

// stubHosts is one row per client with a discovery mechanism for project skills or rules.
// Codex reads Agent Skills from .agents/skills between the working directory and the
// repository root, so it gets skills rather than a section in AGENTS.md: AGENTS.md is the
// project's own text, always loaded whole, while a skill costs only its description until used.
// VS Code loads a .github/instructions file on demand by its description; applyTo is left out
// because it attaches by file glob, and a playbook is about a task, not a file type.
var stubHosts = []stubHost{
	skillHost("claude-code", ".claude/skills"),
	skillHost("codex", ".agents/skills"),
	{client: "cursor", dir: ".cursor/rules/agent-deck", pattern: ".cursor/rules/agent-deck/*.mdc",
		path: func(p backend.PlaybookSummary) string {
			return filepath.Join(".cursor", "rules", "agent-deck", p.ID+".mdc")
		},
		render: func(p backend.PlaybookSummary, desc string) string {
			return "---\ndescription: " + yamlQuote(desc) + "\nalwaysApply: false\n---\n\n" +
				StubMarker + "\n" + stubInstruction(p)
		}},
	{client: "vscode", dir: ".github/instructions", pattern: ".github/instructions/agent-deck-*.instructions.md",
		path: func(p backend.PlaybookSummary) string {
			return filepath.Join(".github", "instructions", "agent-deck-"+stubSlug(p.ID)+".instructions.md")
		},
		render: func(p backend.PlaybookSummary, desc string) string {
			return "---\nname: agent-deck-" + stubSlug(p.ID) + "\ndescription: " + yamlQuote(desc) + "\n---\n\n" +
				StubMarker + "\n" + stubInstruction(p)
		}},
}

// skillHost is a client that reads Agent Skills (a folder per skill holding SKILL.md) from dir.
func skillHost(client, dir string) stubHost {
	return stubHost{client: client, dir: dir, pattern: dir + "/agent-deck-*/SKILL.md",
		path: func(p backend.PlaybookSummary) string {
			return filepath.Join(filepath.FromSlash(dir), "agent-deck-"+stubSlug(p.ID), "SKILL.md")
		},
		render: func(p backend.PlaybookSummary, desc string) string {
			return "---\nname: agent-deck-" + stubSlug(p.ID) + "\ndescription: " + yamlQuote(desc) + "\n---\n\n" +
				StubMarker + "\n" + stubInstruction(p)
		}}
}

// StubClients lists the clients that get playbook stubs.
func StubClients() []string {
	out := make([]string, len(stubHosts))
	for i, h := range stubHosts {
		out[i] = h.client
	}
	return out
}

// StubPatterns returns the glob (project-relative) matching a client's stub files.
func StubPatterns(client string) []string {
	var out []string
	for _, h := range stubHosts {
		if h.client == client {
			out = append(out, h.pattern)
		}
	}
	return out
}

// Stubs renders one stub per playbook for the client, by project-relative path. A stub holds
// the title, the triggers and the instruction to call get_playbook: never the body, which
// stays on the deck so a reviewed change reaches every project at once.
func Stubs(client string, playbooks []backend.PlaybookSummary) map[string]string {
	out := map[string]string{}
	for _, h := range stubHosts {
		if h.client != client {
			continue
		}
		for _, p := range playbooks {
			out[h.path(p)] = h.render(p, stubDescription(p))
		}
	}
	return out
}

func stubDescription(p backend.PlaybookSummary) string {
	d := strings.TrimSpace(p.Title)
	if len(p.Triggers) > 0 {
		t := append([]string(nil), p.Triggers...)
		sort.Strings(t)
		d += ". Use when: " + strings.Join(t, "; ")
	}
	return d
}

func stubInstruction(p backend.PlaybookSummary) string {
	return "This is an Agent Deck playbook. Call the `get_playbook` tool of the `agent-deck` MCP server " +
		"with playbook_id `" + p.ID + "` and follow the playbook it returns.\n"
}

// stubSlug makes a playbook id safe as a skill name: lowercase letters, digits and hyphens.
func stubSlug(id string) string {
	return strings.ReplaceAll(backend.Slugify(strings.TrimPrefix(id, "pb_")), "_", "-")
}

// yamlQuote writes s as a double-quoted YAML scalar on one line.
func yamlQuote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, `\`, `\\`)
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}
