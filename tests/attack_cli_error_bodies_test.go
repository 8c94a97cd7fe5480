package tests

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldenErrorBody is one error answer of the REST API as its own golden file pins it.
type goldenErrorBody struct {
	Status int             `json:"status"`
	Body   json.RawMessage `json:"body"`
}

// serverErrorBodies reads the REST API's golden error bodies: what the server really sends.
func serverErrorBodies(t *testing.T) map[string]goldenErrorBody {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "dashboard-api", "testdata", "error_bodies.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]goldenErrorBody
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// cliAgainstBody runs `agent-deck deck list` against a server that answers every request with
// status and body.
func cliAgainstBody(t *testing.T, status int, body []byte) cliResult {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	return runCLI(t.TempDir(), strings.NewReader(""), "deck", "list", "--server", srv.URL, "--token", "t")
}

// attackCLIHidesServerHint: for every error body the server sends, the CLI prints the message
// and the hint (details.hint), and exits 1 for the caller's faults (4xx), 2 for the rest.
func attackCLIHidesServerHint(t *testing.T) {
	for name, g := range serverErrorBodies(t) {
		t.Run(name, func(t *testing.T) {
			var sent struct {
				Error struct {
					Message string         `json:"message"`
					Details map[string]any `json:"details"`
				} `json:"error"`
			}
			if err := json.Unmarshal(g.Body, &sent); err != nil {
				t.Fatal(err)
			}
			hint, _ := sent.Error.Details["hint"].(string)
			if hint == "" {
				t.Fatalf("the golden body of %s has no hint", name)
			}
			want := 1
			if g.Status >= 500 {
				want = 2
			}
			r := cliAgainstBody(t, g.Status, g.Body).wantCode(t, want)
			if !strings.Contains(r.stderr, sent.Error.Message) || !strings.Contains(r.stderr, "hint: "+hint) {
				t.Errorf("stderr lacks the message %q or the hint %q:\n%s", sent.Error.Message, hint, r.stderr)
			}
		})
	}
}

// attackCLIUnknownCode: a code newer than the CLI (a newer server) is shown with its message and
// hint, and the HTTP status, not a blanket "internal", decides the exit code.
func attackCLIUnknownCode(t *testing.T) {
	body := []byte(`{"error":{"code":"SOME_NEWER_CODE","message":"tool echo changed since it was approved",` +
		`"details":{"hint":"agent-deck service approve peer echo"}}}`)
	r := cliAgainstBody(t, http.StatusConflict, body).wantCode(t, 1)
	for _, want := range []string{"SOME_NEWER_CODE", "tool echo changed since it was approved",
		"hint: agent-deck service approve peer echo"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}
