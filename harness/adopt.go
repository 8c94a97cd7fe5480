package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/agent-deck/agent-deck/backend"
)

// ClientServer is one MCP server as a client's config declares it, before any environment
// reference in it is resolved. `agent-deck adopt` reads these and registers them as services.
type ClientServer struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
	URL     string
	// Type is the client's own word for the transport ("", stdio, http, sse, streamable-http...).
	Type    string
	Headers map[string]string
	// BearerEnv and EnvHeaders are Codex's bearer_token_env_var and env_http_headers: names of
	// environment variables the value is read from. PassEnv is Codex's env_vars.
	BearerEnv  string
	EnvHeaders map[string]string
	PassEnv    []string
	// EnvFile is a file the client loads env from (VS Code, Cursor): not adopted.
	EnvFile  string
	Disabled bool
	// TimeoutSeconds is the tool call timeout the client sets (Codex tool_timeout_sec), 0 if none.
	TimeoutSeconds int
	// Ignored are the entry's keys Agent Deck has no field for, sorted.
	Ignored []string
	// Problem says why the entry cannot be read at all ("" when it can).
	Problem string
}

// Remote reports whether the server is reached over HTTP.
func (s ClientServer) Remote() bool { return s.URL != "" }

// jsonServerKeys are the keys of a JSON client's server entry that adopt maps.
var jsonServerKeys = []string{"type", "command", "args", "env", "cwd", "url", "headers", "disabled", "envFile"}

// codexServerKeys are those of a Codex [mcp_servers.NAME] table.
var codexServerKeys = []string{"command", "args", "env", "cwd", "url", "http_headers", "env_http_headers",
	"bearer_token_env_var", "env_vars", "enabled", "tool_timeout_sec"}

// ReadServers returns the MCP servers the target's config declares, in file order for JSON and
// by name for TOML. Empty input declares none.
func (t Target) ReadServers(src []byte) ([]ClientServer, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, nil
	}
	if t.Format == FormatTOML {
		return readCodexServers(src, t.KeyPath)
	}
	d, root, err := newJSONDoc(src)
	if err != nil {
		return nil, err
	}
	obj, _, missing, err := d.descend(root, t.KeyPath)
	if err != nil || missing < len(t.KeyPath) {
		return nil, err
	}
	var out []ClientServer
	for _, m := range obj.members {
		s := ClientServer{Name: m.key}
		if bad := badText(d.src[m.keyStart:m.val.start], d.src[m.val.start:m.val.end]); bad != "" {
			s.Problem = bad // decoding would repair the text, and register what the file does not say
			out = append(out, s)
			continue
		}
		raw := standardJSON(d.src[m.val.start:m.val.end])
		var entry map[string]json.RawMessage
		if err := json.Unmarshal(raw, &entry); err != nil {
			s.Problem = "the entry is not a JSON object"
			out = append(out, s)
			continue
		}
		s.Problem = decodeJSONServer(&s, entry)
		out = append(out, s)
	}
	return out, nil
}

// badText names what is wrong when a server's name or entry holds text a JSON decoder would
// silently replace (bytes that are not UTF-8, a lone surrogate escape); "" when both are clean.
func badText(name, entry []byte) string {
	switch {
	case backend.CheckJSONText(name) != nil:
		return "its name is not valid UTF-8 text (a byte that is not UTF-8 or a lone surrogate escape); rename it in the client's file"
	case backend.CheckJSONText(entry) != nil:
		return "its entry holds text that is not valid UTF-8 (a byte that is not UTF-8 or a lone surrogate escape); fix it in the client's file"
	}
	return ""
}

func decodeJSONServer(s *ClientServer, entry map[string]json.RawMessage) string {
	fields := []struct {
		key string
		dst any
	}{{"type", &s.Type}, {"command", &s.Command}, {"args", &s.Args}, {"env", &s.Env}, {"cwd", &s.Cwd},
		{"url", &s.URL}, {"headers", &s.Headers}, {"disabled", &s.Disabled}, {"envFile", &s.EnvFile}}
	for _, f := range fields {
		raw, ok := entry[f.key]
		if !ok || string(raw) == "null" {
			continue
		}
		if err := json.Unmarshal(raw, f.dst); err != nil {
			return fmt.Sprintf("%q has a value of the wrong type", f.key)
		}
	}
	for k := range entry {
		if !slices.Contains(jsonServerKeys, k) {
			s.Ignored = append(s.Ignored, k)
		}
	}
	sort.Strings(s.Ignored)
	return ""
}

func readCodexServers(src []byte, keyPath []string) ([]ClientServer, error) {
	var doc map[string]any
	if err := toml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("invalid TOML: %w", err)
	}
	var servers any = doc
	for _, k := range keyPath {
		m, _ := servers.(map[string]any)
		servers = m[k]
	}
	table, _ := servers.(map[string]any)
	names := slices.Sorted(maps.Keys(table))
	out := make([]ClientServer, 0, len(names))
	for _, name := range names {
		s := ClientServer{Name: name}
		entry, ok := table[name].(map[string]any)
		if !ok {
			s.Problem = "the entry is not a table"
		} else {
			s.Problem = decodeCodexServer(&s, entry)
		}
		out = append(out, s)
	}
	return out, nil
}

func decodeCodexServer(s *ClientServer, entry map[string]any) string {
	// A JSON round trip maps TOML's types onto the fields the same way for every key.
	raw, err := json.Marshal(entry)
	if err != nil {
		return "the entry cannot be read"
	}
	var v struct {
		Command    string            `json:"command"`
		Args       []string          `json:"args"`
		Env        map[string]string `json:"env"`
		Cwd        string            `json:"cwd"`
		URL        string            `json:"url"`
		Headers    map[string]string `json:"http_headers"`
		EnvHeaders map[string]string `json:"env_http_headers"`
		BearerEnv  string            `json:"bearer_token_env_var"`
		PassEnv    []string          `json:"env_vars"`
		Enabled    *bool             `json:"enabled"`
		Timeout    float64           `json:"tool_timeout_sec"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return "a key has a value of the wrong type"
	}
	s.Command, s.Args, s.Env, s.Cwd, s.URL, s.Headers = v.Command, v.Args, v.Env, v.Cwd, v.URL, v.Headers
	s.EnvHeaders, s.BearerEnv, s.PassEnv, s.TimeoutSeconds = v.EnvHeaders, v.BearerEnv, v.PassEnv, int(v.Timeout)
	s.Disabled = v.Enabled != nil && !*v.Enabled
	for k := range entry {
		if !slices.Contains(codexServerKeys, k) {
			s.Ignored = append(s.Ignored, k)
		}
	}
	sort.Strings(s.Ignored)
	return ""
}

// RemoveServers takes the named servers out of the target's config, leaving every other byte
// as it was; names not present are ignored.
func (t Target) RemoveServers(src []byte, names []string) ([]byte, error) {
	var err error
	for _, n := range names {
		if t.Format == FormatTOML {
			src, err = DeleteTOMLTable(src, append(slices.Clone(t.KeyPath), n))
		} else {
			src, err = DeleteJSON(src, t.KeyPath, n)
		}
		if err != nil {
			return nil, err
		}
	}
	left, err := t.ReadServers(src)
	if err != nil {
		return nil, err
	}
	for _, s := range left {
		if slices.Contains(names, s.Name) {
			return nil, fmt.Errorf("server %q is written in a form Agent Deck cannot take out; remove it by hand", s.Name)
		}
	}
	return src, nil
}

var envRefRE = regexp.MustCompile(`\$\{([^}]*)\}`)

// Expand resolves the client's variable references in a config value (`${VAR}` and
// `${VAR:-default}` for Claude Code, `${env:VAR}`, `${userHome}` and `${workspaceFolder}` for
// Cursor and VS Code) with lookup, the way the client would when it starts the server. Clients
// without references (Claude Desktop, Codex) get the value unchanged. missing names variables
// that are not set; unknown names references the client resolves itself (VS Code ${input:…}).
func (t Target) Expand(s string, lookup func(string) (string, bool), p Paths) (out string, missing, unknown []string) {
	if t.EnvRef == "" || t.Client == "claude-desktop" {
		return s, nil, nil
	}
	out = envRefRE.ReplaceAllStringFunc(s, func(ref string) string {
		inner := ref[2 : len(ref)-1]
		name, def, hasDef := inner, "", false
		switch {
		case t.EnvRef == "${%s}":
			name, def, hasDef = strings.Cut(inner, ":-")
		case strings.HasPrefix(inner, "env:"):
			name = inner[len("env:"):]
		case inner == "userHome":
			return p.Home
		case inner == "workspaceFolder" && t.Scope == ScopeProject:
			return p.Project
		default:
			unknown = append(unknown, ref)
			return ref
		}
		if v, ok := lookup(name); ok && v != "" {
			return v
		}
		if hasDef {
			return def
		}
		missing = append(missing, name)
		return ref
	})
	return out, missing, unknown
}

// standardJSON turns JSONC (comments, trailing commas) into plain JSON. src must already parse
// as JSONC.
func standardJSON(src []byte) []byte {
	var out bytes.Buffer
	p := &jparser{src: src}
	for p.pos < len(src) {
		c := src[p.pos]
		switch {
		case c == '"':
			start := p.pos
			if _, err := p.str(); err != nil {
				return src
			}
			out.Write(src[start:p.pos])
		case c == '/' && p.pos+1 < len(src) && (src[p.pos+1] == '/' || src[p.pos+1] == '*'):
			if err := p.skip(); err != nil {
				return src
			}
		case c == ',':
			p.pos++
			save := p.pos
			if err := p.skip(); err != nil {
				return src
			}
			if p.pos < len(src) && (src[p.pos] == '}' || src[p.pos] == ']') {
				continue
			}
			out.WriteByte(',')
			p.pos = save
		default:
			out.WriteByte(c)
			p.pos++
		}
	}
	return out.Bytes()
}
