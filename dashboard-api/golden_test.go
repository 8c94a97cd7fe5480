package dashboardapi

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/agent-deck/agent-deck/tests/golden"
)

// checkGolden compares v, as indented JSON, with testdata/name; -update rewrites the file.
func checkGolden(t *testing.T, name string, v any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatalf("encoding %s: %v", name, err)
	}
	golden.Check(t, filepath.Join("testdata", name), buf.Bytes())
}
