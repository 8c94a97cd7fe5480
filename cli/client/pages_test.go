package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
)

// pagedDecks serves n decks at /api/v1/decks in pages of ?limit=, with a Link rel="next" URL
// made by link (from the offset of the next page); limits is every limit it was asked for.
func pagedDecks(t *testing.T, n int, link func(next int) string, limits *[]string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*limits = append(*limits, r.URL.Query().Get("limit"))
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		from, _ := strconv.Atoi(r.URL.Query().Get("cursor"))
		to := min(from+limit, n)
		var page []backend.Deck
		for i := from; i < to; i++ {
			page = append(page, backend.Deck{ID: strconv.Itoa(i), Name: fmt.Sprintf("deck %d", i)})
		}
		if to < n {
			w.Header().Set("Link", link(to))
		}
		_ = json.NewEncoder(w).Encode(page)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestListFollowsNextLinks: a list longer than a page comes back whole, in order, by following
// each page's Link rel="next", relative or absolute on the same server.
func TestListFollowsNextLinks(t *testing.T) {
	for name, absolute := range map[string]bool{"relative link": false, "absolute link": true} {
		t.Run(name, func(t *testing.T) {
			var limits []string
			var srv *httptest.Server
			srv = pagedDecks(t, 7, func(next int) string {
				u := "/api/v1/decks?cursor=" + strconv.Itoa(next) + "&limit=3"
				if absolute {
					u = srv.URL + u
				}
				return "<" + u + `>; rel="next"`
			}, &limits)
			c, err := New(Options{Server: srv.URL, Token: "t"})
			if err != nil {
				t.Fatal(err)
			}
			c.PageSize = 3
			decks, err := c.ListDecks(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, d := range decks {
				ids = append(ids, d.ID)
			}
			if diff := cmp.Diff([]string{"0", "1", "2", "3", "4", "5", "6"}, ids); diff != "" {
				t.Errorf("decks (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"3", "3", "3"}, limits); diff != "" {
				t.Errorf("limits asked (-want +got):\n%s", diff)
			}
		})
	}
}

// TestListRefusesALinkToAnotherServer: the token goes only to the client's own server, whatever
// a Link header names.
func TestListRefusesALinkToAnotherServer(t *testing.T) {
	var limits []string
	srv := pagedDecks(t, 5, func(int) string { return `<http://elsewhere.example/api/v1/decks?cursor=2>; rel="next"` }, &limits)
	c, err := New(Options{Server: srv.URL, Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	c.PageSize = 2
	if _, err := c.ListDecks(context.Background()); err == nil || len(limits) != 1 {
		t.Errorf("a Link to another server: err %v after %d requests, want an error after 1", err, len(limits))
	}
}

// TestListOfAServerWithoutPaging: a server from before paging refuses limit; the client asks for
// the whole list instead.
func TestListOfAServerWithoutPaging(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("limit") {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"code":"INVALID_ARGUMENT","message":"unknown query parameter \"limit\"; this endpoint takes none","details":{"field":"limit"}}}`))
			return
		}
		_, _ = w.Write([]byte(`[{"id":"a","name":"A"},{"id":"b","name":"B"}]`))
	}))
	defer srv.Close()
	c, err := New(Options{Server: srv.URL, Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	decks, err := c.ListDecks(context.Background())
	if err != nil || len(decks) != 2 {
		t.Errorf("ListDecks = %v, %v; want both decks", decks, err)
	}
}
