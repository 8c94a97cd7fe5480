package backend_test

import (
	"net/http"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

func TestEveryCodeHasAStatus(t *testing.T) {
	for _, code := range backend.AllCodes {
		if _, known := backend.HTTPStatus(code); !known {
			t.Errorf("code %s has no HTTP status", code)
		}
	}
	if s, known := backend.HTTPStatus("SOMETHING_NEW"); known || s != http.StatusInternalServerError {
		t.Errorf("an unknown code = %d (known %v), want 500 and not known", s, known)
	}
}
