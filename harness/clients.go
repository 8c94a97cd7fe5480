// Package harness writes Agent Deck into agent clients: the MCP server entry in each client's
// config file, the harness text between markers in its instruction file, and Claude Code's status
// line. Clients are rows of one table; the edits are pure functions over file contents, and file
// I/O happens only in Apply, with atomic writes.
package harness

import (
	"fmt"
	"slices"
	"strings"
)

// ServerName is the key of Agent Deck's entry in every client's MCP server map.
const ServerName = "agent-deck"

// Scope says whether a config lives in the user's home (every project) or in one project.
type Scope string

// Scopes.
const (
	ScopeUser    Scope = "user"
	ScopeProject Scope = "project"
)

// Format is a config file's syntax.
type Format string

// Formats.
const (
	FormatJSON Format = "json" // JSON, comments and trailing commas tolerated (JSONC)
	FormatTOML Format = "toml"
)

// Target is one client in one scope: where its files are and what Agent Deck's entry looks like.
// Paths starting with "~/" are under the home directory, "$CONFIG/" under the user config
// directory (os.UserConfigDir); others are relative to the project root.
type Target struct {
	Client string
	Scope  Scope
	// Config is the MCP config file; KeyPath the object (JSON) or table prefix (TOML) holding the
	// server map.
	Config  string
	Format  Format
	KeyPath []string
	// EnvRef is how the client spells an environment variable reference ("${%s}"); "" when the
	// client names the variable itself (Codex bearer_token_env_var).
	EnvRef string
	// style builds the entry for one target.
	style func(t Target, e Entry) any
	// Instructions is the file that gets the harness text ("" when the client has none in this
	// scope); InstructionsHeader starts that file when Agent Deck creates it.
	Instructions       string
	InstructionsHeader string
	// Settings is Claude Code's settings file, which gets the status line ("" for others).
	Settings string
	// Legacy is where an older Agent Deck wrote this client's entry, at LegacyKeyPath (VS Code's
	// settings.json, before VS Code moved user servers to the profile's mcp.json); setup and
	// remove take Agent Deck's entry out of it so the client does not list it twice.
	Legacy        string
	LegacyKeyPath []string
}

const cursorRuleHeader = "---\ndescription: Agent Deck: bind the session, check the deck, playbooks first\nalwaysApply: true\n---\n"

// targets is the table of supported clients × scopes.
var targets = []Target{
	{Client: "claude-code", Scope: ScopeUser, Config: "~/.claude.json", Format: FormatJSON,
		KeyPath: []string{"mcpServers"}, EnvRef: "${%s}", style: httpEntry("http"),
		Instructions: "~/.claude/CLAUDE.md", Settings: "~/.claude/settings.json"},
	{Client: "claude-code", Scope: ScopeProject, Config: ".mcp.json", Format: FormatJSON,
		KeyPath: []string{"mcpServers"}, EnvRef: "${%s}", style: httpEntry("http"),
		Instructions: "CLAUDE.md", Settings: ".claude/settings.json"},
	{Client: "cursor", Scope: ScopeUser, Config: "~/.cursor/mcp.json", Format: FormatJSON,
		KeyPath: []string{"mcpServers"}, EnvRef: "${env:%s}", style: httpEntry("")},
	{Client: "cursor", Scope: ScopeProject, Config: ".cursor/mcp.json", Format: FormatJSON,
		KeyPath: []string{"mcpServers"}, EnvRef: "${env:%s}", style: httpEntry(""),
		Instructions: ".cursor/rules/agent-deck.mdc", InstructionsHeader: cursorRuleHeader},
	{Client: "vscode", Scope: ScopeUser, Config: "$CONFIG/Code/User/mcp.json", Format: FormatJSON,
		KeyPath: []string{"servers"}, EnvRef: "${env:%s}", style: httpEntry("http"),
		Legacy: "$CONFIG/Code/User/settings.json", LegacyKeyPath: []string{"mcp", "servers"}},
	{Client: "vscode", Scope: ScopeProject, Config: ".vscode/mcp.json", Format: FormatJSON,
		KeyPath: []string{"servers"}, EnvRef: "${env:%s}", style: httpEntry("http"),
		Instructions: ".github/copilot-instructions.md"},
	{Client: "codex", Scope: ScopeUser, Config: "~/.codex/config.toml", Format: FormatTOML,
		KeyPath: []string{"mcp_servers"}, style: codexEntry, Instructions: "~/.codex/AGENTS.md"},
	{Client: "codex", Scope: ScopeProject, Config: ".codex/config.toml", Format: FormatTOML,
		KeyPath: []string{"mcp_servers"}, style: codexEntry, Instructions: "AGENTS.md"},
	{Client: "claude-desktop", Scope: ScopeUser, Config: "$CONFIG/Claude/claude_desktop_config.json",
		Format: FormatJSON, KeyPath: []string{"mcpServers"}, style: stdioEntry},
}

// Clients returns the supported client names.
func Clients() []string {
	var out []string
	for _, t := range targets {
		if !slices.Contains(out, t.Client) {
			out = append(out, t.Client)
		}
	}
	return out
}

// Targets returns every client × scope row.
func Targets() []Target { return slices.Clone(targets) }

// Lookup finds the row for a client and scope.
func Lookup(client string, scope Scope) (Target, error) {
	known := false
	for _, t := range targets {
		if t.Client == client {
			known = true
			if t.Scope == scope {
				return t, nil
			}
		}
	}
	if !known {
		return Target{}, fmt.Errorf("unknown client %q: expected one of %s", client, strings.Join(Clients(), ", "))
	}
	return Target{}, fmt.Errorf("%s has no %s-scope config; use --scope %s", client, scope, otherScope(scope))
}

func otherScope(s Scope) Scope {
	if s == ScopeUser {
		return ScopeProject
	}
	return ScopeUser
}
