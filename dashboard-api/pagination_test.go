package dashboardapi

import (
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
)

// TestPageOf: a page is the part limit and the cursor ask for; the next page continues after the
// last item of the previous one wherever that item is now, and at its position when it is gone.
func TestPageOf(t *testing.T) {
	keys := []string{"a", "b", "c", "d", "e"}
	after := func(next int, key string) string { return cursor{List: "l", Next: next, Key: key}.encode() }
	cases := []struct {
		name     string
		keys     []string
		limit    int
		cursor   string
		want     []string
		nextFrom string // key the next page starts after; "" when this is the last page
	}{
		{"no limit: everything", keys, 0, "", keys, ""},
		{"first page", keys, 2, "", []string{"a", "b"}, "b"},
		{"middle page", keys, 2, after(2, "b"), []string{"c", "d"}, "d"},
		{"last page", keys, 2, after(4, "d"), []string{"e"}, ""},
		{"limit equal to the rest", keys, 3, after(2, "b"), []string{"c", "d", "e"}, ""},
		{"cursor without limit: the rest", keys, 0, after(2, "b"), []string{"c", "d", "e"}, ""},
		{"item added before the cursor", []string{"0", "a", "b", "c", "d", "e"}, 2, after(2, "b"), []string{"c", "d"}, "d"},
		{"item removed before the cursor", []string{"b", "c", "d", "e"}, 2, after(2, "b"), []string{"c", "d"}, "d"},
		{"last item of the page removed", []string{"a", "c", "d", "e"}, 2, after(2, "b"), []string{"d", "e"}, ""},
		{"list shrank below the cursor", []string{"a"}, 2, after(2, "b"), []string{}, ""},
		{"empty list", nil, 2, "", []string{}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			from, to, next, err := pageOf("l", tc.keys, tc.limit, tc.cursor)
			if err != nil {
				t.Fatal(err)
			}
			got := append([]string{}, tc.keys[from:to]...)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("page (-want +got):\n%s", diff)
			}
			if tc.nextFrom == "" && next != "" || tc.nextFrom != "" && next == "" {
				t.Fatalf("next cursor %q, want one after %q", next, tc.nextFrom)
			}
			if next != "" {
				c, err := decodeCursor("l", next)
				if err != nil || c.Key != tc.nextFrom || tc.keys[c.Next-1] != tc.nextFrom {
					t.Errorf("next cursor %+v (%v), want after %q", c, err, tc.nextFrom)
				}
			}
		})
	}
}

// TestEveryListIsPaged: each GET route that answers a JSON array takes limit and cursor, and the
// OpenAPI document says so with the Link header of its answer.
func TestEveryListIsPaged(t *testing.T) {
	a := newAPI(nil, Options{})
	doc, _ := docOf(t, Options{})
	paths := doc["paths"].(map[string]any)
	lists := 0
	for _, r := range a.routes() {
		if r.method != http.MethodGet || r.response == nil || r.response.Kind() != reflect.Slice || r.response == rawMessageType {
			continue
		}
		lists++
		if !r.paged {
			t.Errorf("GET %s answers a list but is not paged: declare it with list()", r.path)
			continue
		}
		var names []string
		for _, q := range r.query {
			names = append(names, q.name)
		}
		if !slices.Contains(names, "limit") || !slices.Contains(names, "cursor") {
			t.Errorf("GET %s takes %v, want limit and cursor among them", r.path, names)
		}
		if !r.linkNext {
			t.Errorf("GET %s is paged but does not document its Link header", r.path)
		}
		op := paths[openAPIPath(r.path)].(map[string]any)["get"].(map[string]any)
		ok := op["responses"].(map[string]any)["200"].(map[string]any)
		if _, documented := ok["headers"].(map[string]any)["Link"]; !documented {
			t.Errorf("GET %s: the OpenAPI document does not name the Link header", r.path)
		}
	}
	if lists < 13 {
		t.Errorf("only %d list routes found", lists)
	}
}

var linkNext = regexp.MustCompile(`^<([^>]+)>; rel="next"$`)

// TestListsPageThroughLinks follows rel="next" through real requests until the last page: the
// pages together are the whole list, in order, and each page but the last is full.
func TestListsPageThroughLinks(t *testing.T) {
	s := newTestServer(t, Options{})
	for i := range 7 {
		s.must(t, http.StatusCreated, "POST", "/api/v1/decks", map[string]any{"name": fmt.Sprintf("deck %d", i)}, nil)
	}
	var whole []backend.Deck
	r := s.must(t, http.StatusOK, "GET", "/api/v1/decks", nil, &whole)
	if r.header.Get("Link") != "" || len(whole) != 7 {
		t.Fatalf("without limit: %d decks, Link %q; want all 7 and no Link", len(whole), r.header.Get("Link"))
	}
	var paged []backend.Deck
	path, pages := "/api/v1/decks?limit=3", 0
	for path != "" {
		var page []backend.Deck
		r := s.must(t, http.StatusOK, "GET", path, nil, &page)
		pages++
		paged = append(paged, page...)
		path = ""
		if link := r.header.Get("Link"); link != "" {
			m := linkNext.FindStringSubmatch(link)
			if m == nil {
				t.Fatalf("Link %q is not one rel=\"next\" URL", link)
			}
			if len(page) != 3 {
				t.Errorf("page %d has %d decks before the last page, want 3", pages, len(page))
			}
			path = m[1]
		}
	}
	if pages != 3 {
		t.Errorf("%d pages, want 3", pages)
	}
	if diff := cmp.Diff(whole, paged); diff != "" {
		t.Errorf("pages together (-whole +paged):\n%s", diff)
	}

	// A deck created before the cursor's place does not shift the next page.
	var first []backend.Deck
	r = s.must(t, http.StatusOK, "GET", "/api/v1/decks?limit=3", nil, &first)
	s.must(t, http.StatusCreated, "POST", "/api/v1/decks", map[string]any{"name": "a deck first by name"}, nil)
	var second []backend.Deck
	s.must(t, http.StatusOK, "GET", linkNext.FindStringSubmatch(r.header.Get("Link"))[1], nil, &second)
	if len(second) != 3 || second[0].ID != whole[3].ID {
		t.Errorf("after an insert before the cursor, the next page starts at %v, want %s", second, whole[3].Name)
	}
}
