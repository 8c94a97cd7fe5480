package harness

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// Paths anchors a target's file names: the home directory, the user config directory and the
// project root.
type Paths struct {
	Home      string
	ConfigDir string
	Project   string
}

// Resolve turns a table path into a file path.
func (p Paths) Resolve(name string) string {
	switch {
	case strings.HasPrefix(name, "~/"):
		return filepath.Join(p.Home, name[2:])
	case strings.HasPrefix(name, "$CONFIG/"):
		return filepath.Join(p.ConfigDir, name[len("$CONFIG/"):])
	}
	return filepath.Join(p.Project, name)
}

// Change is one file edit: a pure function from the old contents to the new ones. Empty new
// contents mean the file should not exist.
type Change struct {
	Path string
	What string
	// Mode is used when the file is created; an existing file keeps its mode.
	Mode os.FileMode
	Edit func([]byte) ([]byte, error)
}

// Changes lists the edits `setup` makes for this target (or takes out, with remove): the MCP
// entry, the harness text naming only tools (the client's profile's tools), and Claude Code's
// status line.
func (t Target) Changes(p Paths, e Entry, tools []string, remove bool) []Change {
	text := Text(tools)
	out := []Change{t.EntryChange(p, e, remove)}
	if t.Instructions != "" {
		header := t.InstructionsHeader
		out = append(out, Change{Path: p.Resolve(t.Instructions), What: "harness text", Mode: 0o644,
			Edit: func(src []byte) ([]byte, error) {
				if remove {
					return RemoveBlock(src, header)
				}
				return SetBlock(src, header, text)
			}})
	}
	if t.Legacy != "" {
		out = append(out, Change{Path: p.Resolve(t.Legacy), What: "old MCP server entry", Mode: 0o644,
			Edit: func(src []byte) ([]byte, error) {
				out, err := DeleteJSON(src, t.LegacyKeyPath, ServerName)
				if err == nil && len(out) == 0 && len(src) > 0 {
					out = []byte("{}\n") // the user's settings file stays
				}
				return out, err
			}})
	}
	if t.Settings != "" {
		cmd := e.statusLine()
		out = append(out, Change{Path: p.Resolve(t.Settings), What: "status line", Mode: 0o644,
			Edit: func(src []byte) ([]byte, error) {
				if remove {
					return RemoveStatusLine(src)
				}
				return SetStatusLine(src, cmd)
			}})
	}
	return out
}

// EntryChange is the edit of the MCP config alone (`agent-deck use` writes only this).
func (t Target) EntryChange(p Paths, e Entry, remove bool) Change {
	mode := os.FileMode(0o644)
	if t.Scope == ScopeUser {
		mode = 0o600 // holds a literal token
	}
	return Change{Path: p.Resolve(t.Config), What: "MCP server entry", Mode: mode,
		Edit: func(src []byte) ([]byte, error) {
			if remove {
				return t.RemoveEntry(src)
			}
			return t.MergeEntry(src, e)
		}}
}

// statusLineOwned reports whether a statusLine value is Agent Deck's.
func statusLineOwned(raw json.RawMessage) bool {
	var v struct {
		Command string `json:"command"`
	}
	return json.Unmarshal(raw, &v) == nil && strings.Contains(v.Command, "agent-deck") &&
		strings.HasSuffix(strings.TrimSpace(v.Command), "statusline")
}

// SetStatusLine sets Claude Code's statusLine to command, unless the user already has a status
// line of their own, which is left alone.
func SetStatusLine(src []byte, command string) ([]byte, error) {
	raw, ok, err := GetJSON(src, "statusLine")
	if err != nil {
		return nil, err
	}
	if ok && !statusLineOwned(raw) {
		return src, nil
	}
	return SetJSON(src, nil, "statusLine", Object{{"type", "command"}, {"command", command}, {"padding", 0}})
}

// RemoveStatusLine removes the statusLine only when it is Agent Deck's.
func RemoveStatusLine(src []byte) ([]byte, error) {
	raw, ok, err := GetJSON(src, "statusLine")
	if err != nil || !ok || !statusLineOwned(raw) {
		return src, err
	}
	return DeleteJSON(src, nil, "statusLine")
}
