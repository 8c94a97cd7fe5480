package tests

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/cli/client"
)

// TestCLIClientPagesThroughARealServer: the CLI's client, asking for two items a page, follows
// the server's Link rel="next" headers and gets every deck and playbook, in the order the whole
// list has.
func TestCLIClientPagesThroughARealServer(t *testing.T) {
	d := startRESTDeck(t)
	for i := range 5 {
		d.api.Must(t, http.StatusCreated, "POST", "/api/v1/decks", map[string]any{"name": fmt.Sprintf("deck %d", i)}, nil)
		d.api.Must(t, http.StatusCreated, "POST", "/api/v1/playbooks",
			map[string]any{"title": fmt.Sprintf("Playbook %d", i), "body": "Do the thing."}, nil)
	}
	var decks []backend.Deck
	var playbooks []backend.Playbook
	d.api.Must(t, http.StatusOK, "GET", "/api/v1/decks", nil, &decks)
	d.api.Must(t, http.StatusOK, "GET", "/api/v1/playbooks", nil, &playbooks)

	c, err := client.New(client.Options{Server: d.srv.URL(), Token: d.srv.AdminToken()})
	if err != nil {
		t.Fatal(err)
	}
	c.PageSize = 2
	ctx := context.Background()
	gotDecks, err := c.ListDecks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gotPlaybooks, err := c.ListPlaybooks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(decks, gotDecks); diff != "" || len(decks) < 5 {
		t.Errorf("paged decks (-whole +paged):\n%s", diff)
	}
	if diff := cmp.Diff(playbooks, gotPlaybooks); diff != "" || len(playbooks) != 5 {
		t.Errorf("paged playbooks (-whole +paged):\n%s", diff)
	}
}
