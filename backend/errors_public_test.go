package backend_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
)

// leakyCause stands for driver or Go error text that must stay in the log.
const leakyCause = `pq: relation "secret_table" does not exist`

// TestPublicFormOfEveryCode runs backend.Public over every code: INTERNAL is reduced to a request
// id, every other code (UNAVAILABLE included) keeps its classified message, hint and details,
// and no cause text comes through.
func TestPublicFormOfEveryCode(t *testing.T) {
	want := map[backend.Code]backend.PublicError{
		backend.CodeInternal: {Code: backend.CodeInternal, Message: "internal error (request id rid-1)",
			Hint:    "retry; if it keeps failing, report request id rid-1 to the deck's operator",
			Details: map[string]any{"request_id": "rid-1"}, Status: http.StatusInternalServerError},
	}
	for _, code := range backend.AllCodes {
		t.Run(string(code), func(t *testing.T) {
			err := &backend.Error{Code: code, Message: "msg of " + string(code), Hint: "hint of " + string(code),
				Details: map[string]any{"field": "name"}, Err: errors.New(leakyCause)}
			got := backend.Public(fmtWrap(err), "rid-1")
			status, known := backend.HTTPStatus(code)
			if !known || status < 400 || status > 599 {
				t.Fatalf("HTTPStatus = %d (known %v), want an error status", status, known)
			}
			w, ok := want[code]
			if !ok {
				w = backend.PublicError{Code: code, Message: "msg of " + string(code), Hint: "hint of " + string(code),
					Details: map[string]any{"field": "name"}, Status: status}
			}
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("public form (-want +got):\n%s", diff)
			}
			if strings.Contains(got.Message+got.Hint, "secret_table") {
				t.Errorf("the cause leaked: %+v", got)
			}
		})
	}
}

func TestPublicFormOfUnknownAndUnclassified(t *testing.T) {
	for name, err := range map[string]error{
		"unclassified": errors.New(leakyCause),
		"unknown code": &backend.Error{Code: "SOMETHING_NEW", Message: leakyCause},
	} {
		got := backend.Public(err, "")
		want := backend.PublicError{Code: backend.CodeInternal, Message: "internal error", Status: 500}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	if s, known := backend.HTTPStatus("SOMETHING_NEW"); known || s != http.StatusInternalServerError {
		t.Errorf("an unknown code = %d (known %v), want 500 and not known", s, known)
	}
}

// fmtWrap wraps err the way operations do, to prove the classification is found through it.
func fmtWrap(err error) error { return errors.Join(err) }

// resourceWords calls every tool as the resource profile does, and has no create_deck.
type resourceWords struct{}

func (resourceWords) Tool(canonical, action string) string {
	switch canonical {
	case "get_decks":
		return "deck action list"
	case "list_service_tools":
		return "service action tools"
	}
	return ""
}

// TestAcceptedHintInCallersWords holds issue 27 item 1 for the accepted-values hints: a person
// reads the REST route that lists a field's values, an agent the tool of its own profile, and
// an agent whose session cannot list them no pointer at all; a hint a use case chose stays.
func TestAcceptedHintInCallersWords(t *testing.T) {
	agent := backend.WithActor(context.Background(), backend.Actor{Scope: backend.ScopeAgent, Kind: backend.ActorAgent})
	person := backend.WithActor(context.Background(), backend.Actor{Scope: backend.ScopeAdmin, Kind: backend.ActorUser})
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		want string
	}{
		{"a person reads the route", person, backend.Invalid("deckId", "is required"),
			"deckId accepts a deck id or exact name; GET /api/v1/decks lists them"},
		{"an agent without words reads the canonical tool", agent, backend.Invalid("deckId", "is required"),
			"deckId accepts a deck id or exact name; get_decks lists them"},
		{"a resource session reads its action", backend.WithToolWords(agent, resourceWords{}), backend.Invalid("deckId", "is required"),
			"deckId accepts a deck id or exact name; deck action list lists them"},
		{"a session that cannot list reads no pointer", backend.WithToolWords(agent, resourceWords{}), backend.Invalid("card_id", "is required"),
			"card_id accepts the id or the name (label, title) of a card"},
		{"a chosen hint stays", backend.WithToolWords(agent, resourceWords{}), backend.Invalid("deckId", "x").WithHint("mine"), "mine"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := backend.PublicFor(tc.ctx, tc.err, "").Hint; got != tc.want {
				t.Errorf("hint %q, want %q", got, tc.want)
			}
		})
	}
	if got := backend.Public(backend.Invalid("deckId", "is required"), "").Hint; !strings.Contains(got, "GET /api/v1/decks") {
		t.Errorf("Public (REST, the CLI) hint %q, want the route", got)
	}
}
