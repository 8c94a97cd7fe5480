package harness

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/agent-deck/agent-deck/backend"
)

// DefaultTokenEnv is the environment variable project-scope files refer to for the token.
const DefaultTokenEnv = backend.EnvToken

// Entry is what Agent Deck's MCP server entry says.
type Entry struct {
	// URL is the Streamable HTTP endpoint, e.g. http://127.0.0.1:1110/mcp.
	URL string
	// Token is written literally in user-scope files; project-scope files refer to TokenEnv.
	Token    string
	TokenEnv string
	// DeckID pins the connection to a deck (`agent-deck use`); Profile narrows the tool profile.
	DeckID  string
	Profile string
	// Command runs the agent-deck binary for stdio-only clients and the status line.
	Command string
	// Home is the data home the status line passes as --home; "" for the default one.
	Home string
}

func (e Entry) tokenEnv() string {
	if e.TokenEnv == "" {
		return DefaultTokenEnv
	}
	return e.TokenEnv
}

func (e Entry) command() string {
	if e.Command == "" {
		return "agent-deck"
	}
	return e.Command
}

// statusLine is the shell command of Claude Code's status line.
func (e Entry) statusLine() string {
	cmd := shellQuote(e.command())
	if e.Home != "" {
		cmd += " --home " + shellQuote(e.Home)
	}
	return cmd + " statusline"
}

// shellQuote returns s as one shell word: unchanged when it holds only safe characters,
// single-quoted otherwise.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./:@%+=,~", r)) {
			safe = false
			break
		}
	}
	if safe && !strings.HasPrefix(s, "~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// token is the value to write: the literal token for user scope, a reference otherwise.
func (t Target) token(e Entry) string {
	if t.Scope == ScopeProject {
		return fmt.Sprintf(t.EnvRef, e.tokenEnv())
	}
	return e.Token
}

// headers are the HTTP headers of the entry, in a fixed order.
func (t Target) headers(e Entry) Object {
	var h Object
	if tok := t.token(e); tok != "" {
		h = append(h, KV{"Authorization", "Bearer " + tok})
	}
	if e.DeckID != "" {
		h = append(h, KV{backend.HeaderDeckID, e.DeckID})
	}
	if e.Profile != "" {
		h = append(h, KV{backend.HeaderProfile, e.Profile})
	}
	return h
}

// httpEntry is the Streamable HTTP entry of JSON clients; typ is the "type" member ("" = none).
func httpEntry(typ string) func(Target, Entry) any {
	return func(t Target, e Entry) any {
		var o Object
		if typ != "" {
			o = append(o, KV{"type", typ})
		}
		o = append(o, KV{"url", e.URL})
		if h := t.headers(e); len(h) > 0 {
			o = append(o, KV{"headers", h})
		}
		return o
	}
}

// stdioEntry runs `agent-deck mcp-stdio`, which bridges to the HTTP endpoint.
func stdioEntry(_ Target, e Entry) any {
	env := Object{{backend.EnvServer, strings.TrimSuffix(strings.TrimSuffix(e.URL, "/"), "/mcp")}}
	if e.Token != "" {
		env = append(env, KV{backend.EnvToken, e.Token})
	}
	if e.DeckID != "" {
		env = append(env, KV{backend.EnvDeckID, e.DeckID})
	}
	if e.Profile != "" {
		env = append(env, KV{backend.EnvProfile, e.Profile})
	}
	return Object{{"command", e.command()}, {"args", []string{"mcp-stdio"}}, {"env", env}}
}

// codexEntry is Codex's [mcp_servers.agent-deck] table.
func codexEntry(t Target, e Entry) any {
	keys := Object{{"url", e.URL}}
	h := Object{}
	if t.Scope == ScopeProject {
		keys = append(keys, KV{"bearer_token_env_var", e.tokenEnv()})
	} else if e.Token != "" {
		h = append(h, KV{"Authorization", "Bearer " + e.Token})
	}
	if e.DeckID != "" {
		h = append(h, KV{backend.HeaderDeckID, e.DeckID})
	}
	if e.Profile != "" {
		h = append(h, KV{backend.HeaderProfile, e.Profile})
	}
	if len(h) > 0 {
		keys = append(keys, KV{"http_headers", h})
	}
	return TOMLTable{Path: append(append([]string{}, t.KeyPath...), ServerName), Keys: keys}
}

// MergeEntry writes Agent Deck's entry into the target's config contents.
func (t Target) MergeEntry(src []byte, e Entry) ([]byte, error) {
	if t.Scope == ScopeUser && e.Token == "" {
		return nil, fmt.Errorf("a token is required for a %s-scope entry", t.Scope)
	}
	if t.Format == FormatTOML {
		return SetTOMLTable(src, t.style(t, e).(TOMLTable))
	}
	return SetJSON(src, t.KeyPath, ServerName, t.style(t, e))
}

// RemoveEntry takes Agent Deck's entry out of the target's config contents.
func (t Target) RemoveEntry(src []byte) ([]byte, error) {
	if t.Format == FormatTOML {
		return DeleteTOMLTable(src, append(append([]string{}, t.KeyPath...), ServerName))
	}
	return DeleteJSON(src, t.KeyPath, ServerName)
}

// ExistingToken returns the literal token of an entry already in the config, "" when there is
// none or it is an environment reference, so running setup again keeps the same token.
func (t Target) ExistingToken(src []byte) string {
	var auth string
	switch {
	case t.Format == FormatTOML:
		var m map[string]any
		if toml.Unmarshal(src, &m) != nil {
			return ""
		}
		servers, _ := m[t.KeyPath[0]].(map[string]any)
		entry, _ := servers[ServerName].(map[string]any)
		headers, _ := entry["http_headers"].(map[string]any)
		auth, _ = headers["Authorization"].(string)
	case t.Client == "claude-desktop":
		raw, ok, _ := GetJSON(src, append(append([]string{}, t.KeyPath...), ServerName, "env", backend.EnvToken)...)
		if ok && json.Unmarshal(raw, &auth) == nil && !strings.Contains(auth, "${") {
			return auth
		}
		return ""
	default:
		raw, ok, _ := GetJSON(src, append(append([]string{}, t.KeyPath...), ServerName, "headers", "Authorization")...)
		if !ok || json.Unmarshal(raw, &auth) != nil {
			return ""
		}
	}
	tok, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok || strings.Contains(tok, "${") {
		return ""
	}
	return tok
}
