package harness

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tailscale/hujson"
)

// FuzzSetJSON: editing any input never panics; when it succeeds the result parses, adding twice
// equals adding once, and removing gives back a document without the entry. When the input is a
// JWCC document (JSON with comments and trailing commas), hujson, a parser independent of the
// editor's, checks the results too: the edited document parses, holds the entry and reads as the
// input everywhere else; after removal the entry is gone and the rest still reads as the input.
func FuzzSetJSON(f *testing.F) {
	for _, s := range []string{`{}`, `{"mcpServers":{"a":{}}}`, "{\n  // c\n  \"x\": [1, 2,],\n}\n", `{"mcpServers": 3}`, ``,
		"\uFEFF{\"mcpServers\": {\"agent-deck\": 1, /* keep */ \"b\": 2,},}\n", "{\"a\": 1 // c\n}\n"} {
		f.Add([]byte(s))
	}
	value := Object{{"type", "http"}, {"url", "http://127.0.0.1:1110/mcp"}}
	f.Fuzz(func(t *testing.T, src []byte) {
		out, err := SetJSON(src, []string{"mcpServers"}, ServerName, value)
		if err != nil {
			return
		}
		if _, err := parseJSONC(out); err != nil {
			t.Fatalf("result does not parse: %v\n%s", err, out)
		}
		again, err := SetJSON(out, []string{"mcpServers"}, ServerName, value)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("adding twice differs: %v\n%s\n%s", err, out, again)
		}
		removed, err := DeleteJSON(out, []string{"mcpServers"}, ServerName)
		if err != nil {
			t.Fatalf("remove: %v", err)
		}
		if raw, ok, _ := GetJSON(removed, "mcpServers", ServerName); ok {
			t.Fatalf("entry still there: %s", raw)
		}
		checkWithHuJSON(t, src, out, removed)
	})
}

// checkWithHuJSON reads the input, the edited and the restored documents with hujson. Inputs
// hujson refuses, or that repeat a member name (which member an edit means is then a matter of
// choice), are left to the checks above.
func checkWithHuJSON(t *testing.T, src, added, removed []byte) {
	t.Helper()
	before, err := readJWCC(src)
	if err != nil {
		return
	}
	after, err := readJWCC(added)
	if err != nil {
		t.Fatalf("hujson cannot read the edited document: %v\n%s", err, added)
	}
	want := map[string]any{"type": "http", "url": "http://127.0.0.1:1110/mcp"}
	if diff := cmp.Diff(want, entryOf(after)); diff != "" {
		t.Fatalf("the edited document's entry (-want +got):\n%s\n%s", diff, added)
	}
	if diff := cmp.Diff(withoutEntry(before), withoutEntry(after)); diff != "" {
		t.Fatalf("adding changed other members (-input +edited):\n%s\n%s", diff, added)
	}
	gone, err := readJWCC(removed)
	if err != nil {
		t.Fatalf("hujson cannot read the document after removal: %v\n%s", err, removed)
	}
	if e := entryOf(gone); e != nil {
		t.Fatalf("entry still there after removal: %v\n%s", e, removed)
	}
	if diff := cmp.Diff(withoutEntry(before), withoutEntry(gone)); diff != "" {
		t.Fatalf("add then remove changed other members (-input +restored):\n%s\n%s", diff, removed)
	}
}

// readJWCC parses a JWCC document with hujson and decodes its standard JSON form. Empty input
// is the empty object, as the editor treats it; a leading byte order mark is allowed, as the
// editor allows it.
func readJWCC(b []byte) (any, error) {
	b = bytes.TrimPrefix(b, []byte("\uFEFF"))
	if len(bytes.TrimSpace(b)) == 0 {
		return map[string]any{}, nil
	}
	v, err := hujson.Parse(b)
	if err != nil {
		return nil, err
	}
	if name, ok := repeatedName(&v); ok {
		return nil, &repeatedNameError{name}
	}
	v.Standardize()
	dec := json.NewDecoder(bytes.NewReader(v.Pack()))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

type repeatedNameError struct{ name string }

func (e *repeatedNameError) Error() string { return "member name " + e.name + " repeated" }

// repeatedName finds an object that names a member twice.
func repeatedName(v *hujson.Value) (string, bool) {
	for x := range v.All() {
		obj, ok := x.Value.(*hujson.Object)
		if !ok {
			continue
		}
		seen := map[string]bool{}
		for _, m := range obj.Members {
			name := m.Name.Value.(hujson.Literal).String()
			if seen[name] {
				return name, true
			}
			seen[name] = true
		}
	}
	return "", false
}

// entryOf returns Agent Deck's entry under mcpServers, nil when there is none.
func entryOf(doc any) any {
	root, _ := doc.(map[string]any)
	servers, _ := root["mcpServers"].(map[string]any)
	return servers[ServerName]
}

// withoutEntry copies a document without Agent Deck's entry, and without mcpServers when the
// entry was all it held (removal takes an emptied mcpServers out).
func withoutEntry(doc any) any {
	root, ok := doc.(map[string]any)
	if !ok {
		return doc
	}
	out := make(map[string]any, len(root))
	for k, v := range root {
		out[k] = v
	}
	servers, ok := root["mcpServers"].(map[string]any)
	if !ok {
		return out
	}
	rest := make(map[string]any, len(servers))
	for k, v := range servers {
		if k != ServerName {
			rest[k] = v
		}
	}
	if len(rest) == 0 {
		delete(out, "mcpServers")
	} else {
		out["mcpServers"] = rest
	}
	return out
}
