package tests

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOpenAPIValidatesWithSwaggerParser hands the document a running server serves (with its
// optional routes: metrics and info) to a second, independent validator, the npm package
// @apidevtools/swagger-parser, which checks it against the OpenAPI 3.1 schema and resolves every
// $ref. dashboard-api's own tests check what the Go side knows (every route documented, refs,
// descriptions); this one catches what only a reader of the standard would.
func TestOpenAPIValidatesWithSwaggerParser(t *testing.T) {
	d := startRESTDeck(t)
	resp, err := http.Get(d.srv.URL() + "/api/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/v1/openapi.json: %d %v", resp.StatusCode, err)
	}
	file := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(file, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "openapi", "validate.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := mcpNode(t, 2*time.Minute, nil, script, file)
	if err != nil || !strings.HasPrefix(out, "valid: ") {
		t.Fatalf("swagger-parser refused the served document (%v):\n%s", err, out)
	}
	t.Log(strings.TrimSpace(out))
}
