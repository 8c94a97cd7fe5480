package tests

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestMarkdownPreviewREST: POST /api/v1/markdown renders through the server's real renderer
// (CommonMark + GFM, sanitized) for any token that may read, refuses markup that could run, and
// changes nothing: the playbook agents read is the markdown as written.
func TestMarkdownPreviewREST(t *testing.T) {
	srv := startFrontDoor(t, nil)
	body := "# Deploy\n\n2 * 3 * 4 and *.go\nstill the same paragraph\n\n<script>alert(1)</script>\n"
	status, raw := frontDoorCall(t, srv, srv.AdminToken(), http.MethodPost, "/api/v1/playbooks",
		[]byte(toJSON(t, map[string]any{"title": "Deploy", "body": body})))
	if status != http.StatusCreated {
		t.Fatalf("create playbook: %d %s", status, raw)
	}
	reader := frontDoorToken(t, srv, backend.ScopeAgentRead)
	status, raw = frontDoorCall(t, srv, reader, http.MethodPost, "/api/v1/markdown", []byte(toJSON(t, map[string]any{"markdown": body})))
	var p core.MarkdownPreview
	if status != http.StatusOK || json.Unmarshal(raw, &p) != nil {
		t.Fatalf("preview: %d %s", status, raw)
	}
	for _, want := range []string{"<h1>Deploy</h1>", "<p>2 * 3 * 4 and *.go\nstill the same paragraph</p>"} {
		if !strings.Contains(p.HTML, want) {
			t.Errorf("preview %q lacks %q", p.HTML, want)
		}
	}
	if strings.Contains(p.HTML, "<script") || strings.Contains(p.HTML, "alert(1)") {
		t.Errorf("preview kept the script: %q", p.HTML)
	}
	var pb backend.Playbook
	status, raw = frontDoorCall(t, srv, reader, http.MethodGet, "/api/v1/playbooks/Deploy", nil)
	if status != http.StatusOK || json.Unmarshal(raw, &pb) != nil || pb.Body != body {
		t.Errorf("the playbook after a preview: %d body %q, want the markdown as written", status, pb.Body)
	}
	big := strings.Repeat("x", backend.MaxBodyBytes+1)
	status, raw = frontDoorCall(t, srv, reader, http.MethodPost, "/api/v1/markdown", []byte(toJSON(t, map[string]any{"markdown": big})))
	if status != http.StatusBadRequest && status != http.StatusRequestEntityTooLarge {
		t.Errorf("an oversized preview: %d %.200s", status, raw)
	}
}

// attackRESTMarkdownPreviewMarkup: a playbook written by an agent (or a bundle) carries markup;
// the preview the dashboard shows keeps nothing that runs, loads or navigates.
func attackRESTMarkdownPreviewMarkup(t *testing.T) {
	srv := startFrontDoor(t, nil)
	agent := frontDoorToken(t, srv, backend.ScopeAgent)
	for _, src := range []string{
		`<script>fetch('/api/v1/tokens')</script>`,
		`<img src=x onerror="fetch('/api/v1/tokens')">`,
		`[click](javascript:fetch('/api/v1/tokens'))`,
		`<iframe src="https://evil.example"></iframe>`,
		`<a href="https://evil.example" onclick="x()">x</a>`,
		`<form action="https://evil.example"><button>go</button></form>`,
	} {
		status, raw := frontDoorCall(t, srv, agent, http.MethodPost, "/api/v1/markdown", []byte(toJSON(t, map[string]any{"markdown": src})))
		var p core.MarkdownPreview
		if status != http.StatusOK || json.Unmarshal(raw, &p) != nil {
			t.Fatalf("preview of %q: %d %s", src, status, raw)
		}
		low := strings.ToLower(p.HTML)
		for _, bad := range []string{"<script", "onerror", "onclick", "javascript:", "<iframe", "<form"} {
			if strings.Contains(low, bad) {
				t.Errorf("preview of %q kept %q: %s", src, bad, p.HTML)
			}
		}
	}
}
