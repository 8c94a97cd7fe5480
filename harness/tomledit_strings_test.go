package harness

import (
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// TestTOMLTableInsideStrings: string contents that look like TOML syntax (a '"""' inside a
// literal string, a table header inside a multi-line string) must not move where Agent Deck
// finds its table. A line scanner took the first for the start of a multi-line string and then
// saw no table at all.
func TestTOMLTableInsideStrings(t *testing.T) {
	tg, err := Lookup("codex", ScopeUser)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, before string }{
		{"triple quote in a literal string", "prompt = '\"\"\"'\nmodel = \"o3\"\n"},
		{"triple quote in a basic string", "prompt = \"say \\\"\\\"\\\" please\"\n"},
		{"header inside a multi-line string", "notes = \"\"\"\n[mcp_servers.agent-deck]\nurl = \"x\"\n\"\"\"\n"},
		{"literal triple quotes in a multi-line literal", "notes = '''\n\"\"\"\n'''\n"},
		{"comment before the next table", "[mcp_servers.fetch]\ncommand = \"uvx\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			after, err := tg.MergeEntry([]byte(tc.before), testEntry)
			if err != nil {
				t.Fatalf("merge: %v", err)
			}
			var m map[string]any
			if err := toml.Unmarshal(after, &m); err != nil {
				t.Fatalf("merge made invalid TOML: %v\n%s", err, after)
			}
			if !strings.HasPrefix(string(after), tc.before) {
				t.Errorf("merge changed what was there:\n%s", after)
			}
			again, err := tg.MergeEntry(after, Entry{URL: "http://127.0.0.1:2220/mcp", Token: "tok_2"})
			if err != nil {
				t.Fatalf("merge over the existing entry: %v\n%s", err, after)
			}
			if strings.Count(string(again), "[mcp_servers.agent-deck]") != 1+strings.Count(tc.before, "[mcp_servers.agent-deck]") ||
				!strings.Contains(string(again), "2220") {
				t.Errorf("the second merge did not replace the table in place:\n%s", again)
			}
			removed, err := tg.RemoveEntry(after)
			if err != nil || string(removed) != tc.before {
				t.Errorf("remove: %v\n%q, want %q", err, removed, tc.before)
			}
		})
	}
	// A comment that introduces the table after Agent Deck's stays when the entry is replaced
	// or removed.
	src := "[mcp_servers.agent-deck]\nurl = \"old\"\n\n# my fetch server\n[mcp_servers.fetch]\ncommand = \"uvx\"\n"
	out, err := tg.MergeEntry([]byte(src), testEntry)
	if err != nil || !strings.Contains(string(out), "# my fetch server\n[mcp_servers.fetch]") {
		t.Errorf("replace dropped the comment before the next table: %v\n%s", err, out)
	}
	out, err = tg.RemoveEntry([]byte(src))
	if err != nil || string(out) != "\n# my fetch server\n[mcp_servers.fetch]\ncommand = \"uvx\"\n" {
		t.Errorf("remove: %v\n%q", err, out)
	}
}

// FuzzTOMLTable: on any valid TOML without Agent Deck's table, merging either refuses or adds
// the table so that removing it gives the original back (with a final newline).
func FuzzTOMLTable(f *testing.F) {
	for _, s := range []string{"", "a = 1\n", "prompt = '\"\"\"'\n", "x = \"\"\"\n[t]\n\"\"\"\n[t2]\nk = 'v'\n",
		"[mcp_servers.fetch]\ncommand = \"uvx\"\n# note\n[profiles.a]\nm = 1", "[[arr]]\na = 1\n"} {
		f.Add(s)
	}
	tg, err := Lookup("codex", ScopeUser)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src string) {
		var m map[string]any
		if toml.Unmarshal([]byte(src), &m) != nil || strings.Contains(src, "agent-deck") {
			return
		}
		after, err := tg.MergeEntry([]byte(src), testEntry)
		if err != nil {
			return
		}
		if toml.Unmarshal(after, &m) != nil {
			t.Fatalf("merge made invalid TOML:\n%s", after)
		}
		removed, err := tg.RemoveEntry(after)
		if err != nil {
			t.Fatal(err)
		}
		if r := string(removed); r != src && r != src+"\n" && !(strings.TrimSpace(src) == "" && r == "") {
			t.Fatalf("remove after merge:\n%q\nwant\n%q", r, src)
		}
	})
}
