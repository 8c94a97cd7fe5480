package harness

import (
	"bytes"
	"testing"
)

// FuzzSetJSON: editing any input never panics; when it succeeds the result parses, adding twice
// equals adding once, and removing gives back a document without the entry.
func FuzzSetJSON(f *testing.F) {
	for _, s := range []string{`{}`, `{"mcpServers":{"a":{}}}`, "{\n  // c\n  \"x\": [1, 2,],\n}\n", `{"mcpServers": 3}`, ``} {
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
	})
}
