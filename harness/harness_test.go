package harness

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/tests/golden"
)

var testEntry = Entry{URL: "http://127.0.0.1:1110/mcp", Token: "tok_test_123", Command: "agent-deck"}

// slug names a Change's golden files.
func slug(what string) string {
	switch what {
	case "MCP server entry":
		return "mcp"
	}
	return strings.ReplaceAll(what, " ", "-")
}

func readOptional(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return b
}

// TestGolden runs every client × scope against an empty start and against files holding user
// content, comments and other servers: add matches the golden file, add twice = add once, add
// then remove = the original byte for byte, and remove on a file without Agent Deck changes
// nothing.
func TestGolden(t *testing.T) {
	for _, tg := range Targets() {
		for _, scenario := range []string{"empty", "existing"} {
			name := tg.Client + "-" + string(tg.Scope)
			t.Run(name+"/"+scenario, func(t *testing.T) {
				add := tg.Changes(Paths{}, testEntry, ruleTools(), false)
				del := tg.Changes(Paths{}, testEntry, ruleTools(), true)
				for i, c := range add {
					dir := filepath.Join("testdata", name, scenario)
					var before []byte
					if scenario == "existing" {
						before = readOptional(t, filepath.Join(dir, slug(c.What)+".before"))
					}
					checkRoundTrip(t, dir, slug(c.What), before, c, del[i])
				}
			})
		}
	}
}

func checkRoundTrip(t *testing.T, dir, base string, before []byte, add, del Change) {
	t.Helper()
	after, err := add.Edit(before)
	if err != nil {
		t.Fatalf("%s: add: %v", base, err)
	}
	golden.CheckOptional(t, filepath.Join(dir, base+".after"), after)
	again, err := add.Edit(after)
	if err != nil {
		t.Fatalf("%s: add again: %v", base, err)
	}
	if !bytes.Equal(again, after) {
		t.Errorf("%s: adding twice differs from adding once:\n%s", base, cmp.Diff(string(after), string(again)))
	}
	removed, err := del.Edit(after)
	if err != nil {
		t.Fatalf("%s: remove: %v", base, err)
	}
	if !bytes.Equal(removed, before) {
		t.Errorf("%s: add then remove is not the original:\n%s", base, cmp.Diff(string(before), string(removed)))
	}
	untouched, err := del.Edit(before)
	if err != nil {
		t.Fatalf("%s: remove from original: %v", base, err)
	}
	if !bytes.Equal(untouched, before) {
		t.Errorf("%s: remove without an entry changed the file", base)
	}
}

func TestProjectScopeHasNoLiteralToken(t *testing.T) {
	for _, tg := range Targets() {
		if tg.Scope != ScopeProject {
			continue
		}
		t.Run(tg.Client, func(t *testing.T) {
			out, err := tg.MergeEntry(nil, testEntry)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(out, []byte(testEntry.Token)) {
				t.Errorf("project file holds the literal token:\n%s", out)
			}
			if !bytes.Contains(out, []byte(DefaultTokenEnv)) {
				t.Errorf("project file does not refer to $%s:\n%s", DefaultTokenEnv, out)
			}
		})
	}
}

func TestExistingToken(t *testing.T) {
	for _, tg := range Targets() {
		t.Run(tg.Client+"-"+string(tg.Scope), func(t *testing.T) {
			out, err := tg.MergeEntry(nil, testEntry)
			if err != nil {
				t.Fatal(err)
			}
			want := testEntry.Token
			if tg.Scope == ScopeProject {
				want = ""
			}
			if got := tg.ExistingToken(out); got != want {
				t.Errorf("ExistingToken = %q, want %q", got, want)
			}
		})
	}
}

// ruleTools lists every tool the rules name: the text for a profile that has them all, as the
// standard profile does (cli's test pins the text of each real profile).
func ruleTools() []string {
	var all []string
	for _, r := range harnessRules {
		for _, name := range r.tools {
			if !slices.Contains(all, name) {
				all = append(all, name)
			}
		}
	}
	return all
}

// TestTextNamesOnlyGivenTools: a rule appears only when the client has every tool it names, and
// a rule's text names no tool it does not declare.
func TestTextNamesOnlyGivenTools(t *testing.T) {
	all := ruleTools()
	for _, r := range harnessRules {
		for _, name := range all {
			if strings.Contains(r.text, "`"+name+"`") && !slices.Contains(r.tools, name) {
				t.Errorf("rule %.40q names %s without declaring it", r.text, name)
			}
		}
	}
	tests := []struct {
		name  string
		tools []string
	}{
		{"every tool", all},
		{"no editing tools", slices.DeleteFunc(slices.Clone(all), func(n string) bool {
			return n == "register_playbook" || n == "manage_deck_card"
		})},
		{"bind only", []string{"bind_workspace"}},
		{"none", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := Text(tc.tools)
			for _, name := range all {
				if strings.Contains(text, "`"+name+"`") && !slices.Contains(tc.tools, name) {
					t.Errorf("text names %s, which the client lacks:\n%s", name, text)
				}
			}
			for _, name := range tc.tools {
				if !strings.Contains(text, "`"+name+"`") {
					t.Errorf("text never names %s, which the client has:\n%s", name, text)
				}
			}
			if !strings.Contains(text, "**Secrets.**") {
				t.Errorf("text lacks the secrets rule:\n%s", text)
			}
		})
	}
}

func TestStatusLineKeepsForeignCommand(t *testing.T) {
	src := []byte("{\n  \"statusLine\": {\"type\": \"command\", \"command\": \"mine\"}\n}\n")
	out, err := SetStatusLine(src, "agent-deck statusline")
	if err != nil || !bytes.Equal(out, src) {
		t.Fatalf("foreign status line changed: %v\n%s", err, out)
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		name   string
		client string
		scope  Scope
		ok     bool
	}{
		{"claude code project", "claude-code", ScopeProject, true},
		{"desktop has no project scope", "claude-desktop", ScopeProject, false},
		{"unknown client", "emacs", ScopeUser, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Lookup(tc.client, tc.scope)
			if (err == nil) != tc.ok {
				t.Errorf("Lookup err = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

// TestUseEntryGolden covers the entry `agent-deck use` writes: project scope, token by
// environment reference, the deck header.
func TestUseEntryGolden(t *testing.T) {
	e := Entry{URL: testEntry.URL, DeckID: "0b5e6f1c-7d2a-4c39-9e8f-1a2b3c4d5e6f", Profile: "runtime"}
	for _, tg := range Targets() {
		if tg.Scope != ScopeProject {
			continue
		}
		t.Run(tg.Client, func(t *testing.T) {
			add, del := tg.EntryChange(Paths{}, e, false), tg.EntryChange(Paths{}, e, true)
			checkRoundTrip(t, filepath.Join("testdata", "use", tg.Client), "mcp", nil, add, del)
			out, _ := add.Edit(nil)
			if !bytes.Contains(out, []byte(e.DeckID)) || !bytes.Contains(out, []byte(backend.HeaderDeckID)) {
				t.Errorf("no deck header:\n%s", out)
			}
		})
	}
}

func TestApplyIsAtomicAndKeepsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "settings.json")
	c := Change{Path: path, Mode: 0o600, Edit: func(b []byte) ([]byte, error) {
		return SetJSON(b, nil, "a", 1)
	}}
	for _, want := range []Outcome{Created, Unchanged} {
		if got, err := Apply(c); err != nil || got != want {
			t.Fatalf("Apply = %v, %v; want %v", got, err, want)
		}
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	c.Edit = func(b []byte) ([]byte, error) { return SetJSON(b, nil, "b", 2) }
	if got, err := Apply(c); err != nil || got != Updated {
		t.Fatalf("Apply = %v, %v", got, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640 kept", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	c.Edit = func([]byte) ([]byte, error) { return nil, nil }
	if got, err := Apply(c); err != nil || got != Removed {
		t.Fatalf("Apply = %v, %v; want removed", got, err)
	}
}

func TestMalformedFilesAreRefused(t *testing.T) {
	tests := []struct {
		name string
		edit func() ([]byte, error)
	}{
		{"json", func() ([]byte, error) { return SetJSON([]byte(`{"a": [1,}`), []string{"mcpServers"}, "x", 1) }},
		{"json array root", func() ([]byte, error) { return SetJSON([]byte(`[]`), nil, "x", 1) }},
		{"toml", func() ([]byte, error) { return SetTOMLTable([]byte("a = \n"), TOMLTable{Path: []string{"t"}}) }},
		{"toml inline table", func() ([]byte, error) {
			return SetTOMLTable([]byte("mcp_servers = { agent-deck = { url = \"x\" } }\n"),
				TOMLTable{Path: []string{"mcp_servers", "agent-deck"}, Keys: Object{{"url", "y"}}})
		}},
		{"markers", func() ([]byte, error) { return SetBlock([]byte(MarkerEnd+"\n"+MarkerStart), "", "x") }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.edit(); err == nil {
				t.Error("a malformed file was edited")
			}
		})
	}
}
