package tests

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/tests/resttest"
)

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
// and the hint, and exits 1 for the caller's faults (4xx), 2 for the rest.
func attackCLIHidesServerHint(t *testing.T) {
	for name, g := range resttest.ServerErrorBodies(t) {
		t.Run(name, func(t *testing.T) {
			p := resttest.Answer{Status: g.Status, Body: g.Body}.Problem()
			message, hint := p.Detail, p.Hint
			if hint == "" {
				t.Fatalf("the golden body of %s has no hint", name)
			}
			want := 1
			if g.Status >= 500 {
				want = 2
			}
			r := cliAgainstBody(t, g.Status, g.Body).wantCode(t, want)
			if !strings.Contains(r.stderr, message) || !strings.Contains(r.stderr, "hint: "+hint) {
				t.Errorf("stderr lacks the message %q or the hint %q:\n%s", message, hint, r.stderr)
			}
		})
	}
}

// attackCLIUnknownCode: a code newer than the CLI (a newer server) is shown with its message and
// hint, and the HTTP status, not a blanket "internal", decides the exit code; whether the server
// sends a problem document or, older, only the error object.
func attackCLIUnknownCode(t *testing.T) {
	bodies := map[string][]byte{
		"problem document": []byte(`{"type":"/api/v1/problems/SOME_NEWER_CODE","title":"Newer","status":409,` +
			`"detail":"tool echo changed since it was approved","instance":"/api/v1/decks","code":"SOME_NEWER_CODE",` +
			`"hint":"agent-deck service approve peer echo","details":{}}`),
		"error object of an older server": []byte(`{"error":{"code":"SOME_NEWER_CODE","message":"tool echo changed since it was approved",` +
			`"details":{"hint":"agent-deck service approve peer echo"}}}`),
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			r := cliAgainstBody(t, http.StatusConflict, body).wantCode(t, 1)
			for _, want := range []string{"SOME_NEWER_CODE", "tool echo changed since it was approved",
				"hint: agent-deck service approve peer echo"} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
		})
	}
}
