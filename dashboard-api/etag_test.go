package dashboardapi

import (
	"net/http"
	"testing"
)

func TestETagMatches(t *testing.T) {
	tag := `"abc"`
	cases := []struct {
		ifNoneMatch string
		want        bool
	}{
		{`"abc"`, true},
		{`W/"abc"`, true},
		{`"x", "abc"`, true},
		{`*`, true},
		{`"abd"`, false},
		{`abc`, false},
		{``, false},
	}
	for _, tc := range cases {
		if got := etagMatches(tc.ifNoneMatch, tag); got != tc.want {
			t.Errorf("etagMatches(%q, %s) = %v, want %v", tc.ifNoneMatch, tag, got, tc.want)
		}
	}
}

// TestConditionalReads: the reads the dashboard polls carry an ETag; sent back in
// If-None-Match it gets 304 without a body while nothing changed, and a change gives a new tag
// and the new body.
func TestConditionalReads(t *testing.T) {
	s := newTestServer(t, Options{})
	seed(t, s)
	for _, path := range []string{"/api/v1/decks", "/api/v1/decks/Main", "/api/v1/decks/Main/snapshot",
		"/api/v1/services", "/api/v1/services/Files", "/api/v1/sessions", "/api/v1/proposals?status=open",
		"/api/v1/credentials", "/api/v1/playbooks"} {
		t.Run(path, func(t *testing.T) {
			first := s.do(t, s.admin, "GET", path, nil)
			tag := first.header.Get("ETag")
			if first.status != http.StatusOK || len(tag) < 10 || tag[0] != '"' {
				t.Fatalf("GET: %d, ETag %q", first.status, tag)
			}
			if cc := first.header.Get("Cache-Control"); cc != "private, no-cache" {
				t.Errorf("Cache-Control %q, want private, no-cache", cc)
			}
			for _, inm := range []string{tag, "W/" + tag, `"other", ` + tag} {
				again := s.api.Do(t, s.admin, "GET", path, nil, "If-None-Match", inm)
				if again.Status != http.StatusNotModified || len(again.Body) != 0 || again.Header.Get("ETag") != tag {
					t.Errorf("If-None-Match %s: %d, %d bytes, ETag %q; want 304, no body, the same tag",
						inm, again.Status, len(again.Body), again.Header.Get("ETag"))
				}
			}
			other := s.api.Do(t, s.admin, "GET", path, nil, "If-None-Match", `"not-the-tag"`)
			if other.Status != http.StatusOK || string(other.Body) != string(first.body) {
				t.Errorf("a stale If-None-Match: %d, want 200 with the body", other.Status)
			}
		})
	}

	t.Run("a change gives a new tag", func(t *testing.T) {
		before := s.do(t, s.admin, "GET", "/api/v1/decks/Main/snapshot", nil)
		s.must(t, http.StatusOK, "DELETE", "/api/v1/decks/Main/cards/playbook/pb_refund", nil, nil)
		after := s.api.Do(t, s.admin, "GET", "/api/v1/decks/Main/snapshot", nil, "If-None-Match", before.header.Get("ETag"))
		if after.Status != http.StatusOK || after.Header.Get("ETag") == before.header.Get("ETag") {
			t.Errorf("after unlinking a card: %d, ETag %q (was %q); want 200 and a new tag",
				after.Status, after.Header.Get("ETag"), before.header.Get("ETag"))
		}
	})
	t.Run("writes and errors carry no tag", func(t *testing.T) {
		for _, r := range []response{
			s.do(t, s.admin, "PATCH", "/api/v1/decks/Main", map[string]any{"name": "Main"}),
			s.do(t, s.admin, "GET", "/api/v1/decks/Nowhere", nil),
		} {
			if tag := r.header.Get("ETag"); tag != "" {
				t.Errorf("status %d answered with ETag %q", r.status, tag)
			}
		}
	})
}
