package postgres_test

import (
	"context"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/postgres"
)

var ctx = context.Background()

// wantCode fails unless err is a *backend.Error with the code (and, when field is not "",
// Details["field"] == field).
func wantCode(t *testing.T, err error, code backend.Code, field string) {
	t.Helper()
	if got := backend.ErrorCode(err); got != code {
		t.Fatalf("error %v: code %q, want %q", err, got, code)
	}
	be := backend.AsError(err)
	if field != "" && be.Details["field"] != field {
		t.Fatalf("error %v: field %v, want %q", err, be.Details["field"], field)
	}
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func newDeck(t *testing.T, st *postgres.Store, name string) backend.Deck {
	t.Helper()
	d := backend.Deck{Name: name}
	mustOK(t, st.CreateDeck(ctx, &d))
	return d
}

func newService(t *testing.T, st *postgres.Store, name string) backend.ServiceRecord {
	t.Helper()
	s := backend.ServiceRecord{ServiceCard: backend.ServiceCard{Name: name, Type: backend.ServiceRemote,
		URL: "http://127.0.0.1:1/mcp"}}
	mustOK(t, st.CreateService(ctx, &s))
	return s
}

func newCredential(t *testing.T, st *postgres.Store, id, label string) backend.CredentialRecord {
	t.Helper()
	c := backend.CredentialRecord{Credential: backend.Credential{ID: id, Label: label, EnvName: "X_API_KEY"},
		SealedSecret: []byte("sealed")}
	mustOK(t, st.CreateCredential(ctx, &c))
	return c
}

func newPlaybook(t *testing.T, st *postgres.Store, id, title string) backend.Playbook {
	t.Helper()
	p := backend.Playbook{ID: id, Title: title, Body: "do it"}
	mustOK(t, st.CreatePlaybook(ctx, &p))
	return p
}

func linkIDs(t *testing.T, st *postgres.Store, deckID string, ct backend.CardType) []string {
	t.Helper()
	links, err := st.ListLinks(ctx, deckID)
	mustOK(t, err)
	ids := []string{}
	for _, l := range links {
		if l.CardType == ct {
			ids = append(ids, l.CardID)
		}
	}
	return ids
}

func pgtestOpen(url string) (*postgres.Store, error) {
	return postgres.Open(ctx, url)
}
