package backend_test

import (
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
