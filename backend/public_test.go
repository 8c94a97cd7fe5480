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

func TestPublicFormOfEveryCode(t *testing.T) {
	want := map[backend.Code]backend.PublicError{
		backend.CodeInternal: {Code: backend.CodeInternal, Message: "internal error (request id rid-1)",
			Hint:    "retry; if it keeps failing, report request id rid-1 to the deck's operator",
			Details: map[string]any{"request_id": "rid-1"}, Status: http.StatusInternalServerError},
	}
	status := map[backend.Code]int{
		backend.CodeNotBound: 409, backend.CodeNotFound: 404, backend.CodeNotOnBoundDeck: 409,
		backend.CodeInvalidArgument: 400, backend.CodeConflict: 409, backend.CodePlaybookDependency: 409,
		backend.CodeUnauthenticated: 401, backend.CodeForbidden: 403, backend.CodeToolDisabled: 409,
		backend.CodeDownstreamUnreachable: 503, backend.CodeDownstreamAuth: 503,
		backend.CodeDownstreamTimeout: 504, backend.CodeDownstreamError: 503, backend.CodeUnavailable: 503,
		backend.CodeInternal: 500,
	}
	for _, code := range backend.AllCodes {
		t.Run(string(code), func(t *testing.T) {
			err := &backend.Error{Code: code, Message: "msg of " + string(code), Hint: "hint of " + string(code),
				Details: map[string]any{"field": "name"}, Err: errors.New(leakyCause)}
			got := backend.Public(fmtWrap(err), "rid-1")
			w, ok := want[code]
			if !ok {
				w = backend.PublicError{Code: code, Message: "msg of " + string(code), Hint: "hint of " + string(code),
					Details: map[string]any{"field": "name"}, Status: status[code]}
			}
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("public form (-want +got):\n%s", diff)
			}
			if s, known := backend.HTTPStatus(code); !known || s != status[code] {
				t.Errorf("HTTPStatus = %d (known %v), want %d", s, known, status[code])
			}
			if strings.Contains(got.Message+got.Hint, "secret_table") {
				t.Errorf("the cause leaked: %+v", got)
			}
		})
	}
	if len(status) != len(backend.AllCodes) {
		t.Errorf("the test knows %d codes, backend.AllCodes has %d", len(status), len(backend.AllCodes))
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
