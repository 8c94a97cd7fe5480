package dashboardapi

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
)

type badInputCase struct {
	name, method, path string
	body               any    // string: sent as is
	field              string // details.field, "" when the whole body is at fault
	message            string // substring of the message
}

func badInputCases() []badInputCase {
	long := strings.Repeat("n", backend.MaxNameLength+1)
	triggers := make([]string, 17)
	for i := range triggers {
		triggers[i] = fmt.Sprintf("trigger %d", i)
	}
	return []badInputCase{
		{"empty body", "POST", "/api/v1/decks", "", "", "request body is empty"},
		{"not JSON", "POST", "/api/v1/decks", "name=x", "", "not valid JSON"},
		{"array body", "POST", "/api/v1/decks", "[]", "", "must be a JSON object"},
		{"wrong type", "POST", "/api/v1/decks", `{"name":5}`, "name", "must be a string"},
		{"missing field", "POST", "/api/v1/decks", `{}`, "name", `missing required field "name"`},
		{"unknown field", "POST", "/api/v1/decks", `{"name":"x","color":"red"}`, "color", `unknown field "color"`},
		{"camelCase field", "POST", "/api/v1/decks/Main/cards", `{"cardType":"service","card_id":"Files"}`, "cardType", "unknown field"},
		{"empty name", "POST", "/api/v1/decks", `{"name":""}`, "name", "empty"},
		{"blank name", "POST", "/api/v1/decks", `{"name":"   "}`, "name", "empty"},
		{"over-long name", "POST", "/api/v1/decks", `{"name":"` + long + `"}`, "name", "at most"},
		{"control character in name", "POST", "/api/v1/decks", `{"name":"a\nb"}`, "name", "control"},
		{"oversized body", "POST", "/api/v1/decks", `{"name":"` + strings.Repeat("x", 1<<20) + `"}`, "", "limit of 1048576 bytes"},
		{"rename wrong type", "PATCH", "/api/v1/decks/Main", `{"name":["a"]}`, "name", "must be a string"},
		{"unknown card type", "POST", "/api/v1/decks/Main/cards", `{"card_type":"widget","card_id":"Files"}`, "card_type", "widget"},
		{"missing card id", "POST", "/api/v1/decks/Main/cards", `{"card_type":"service"}`, "card_id", "missing required"},
		{"position not integer", "POST", "/api/v1/decks/Main/cards", `{"card_type":"service","card_id":"Files","position":1.5}`, "position", "integer"},
		{"reorder wrong type", "PUT", "/api/v1/decks/Main/cards/service/order", `{"ordered_card_ids":"Files"}`, "ordered_card_ids", "array of strings"},
		{"reorder bad card type", "PUT", "/api/v1/decks/Main/cards/widget/order", `{"ordered_card_ids":[]}`, "card_type", "widget"},
		{"unlink bad card type", "DELETE", "/api/v1/decks/Main/cards/widget/Files", nil, "card_type", "widget"},
		{"service type", "POST", "/api/v1/services", `{"name":"S","type":"ftp"}`, "type", "ftp"},
		{"service url", "POST", "/api/v1/services", `{"name":"S","type":"mcp","url":"not a url"}`, "url", "URL"},
		{"timeout as string", "POST", "/api/v1/services", `{"name":"S","type":"mcp","url":"http://x","timeout_seconds":"60"}`, "timeout_seconds", "integer"},
		{"header value type", "POST", "/api/v1/services", `{"name":"S","type":"mcp","url":"http://x","headers":{"A":1}}`, "headers", "strings"},
		{"patch unknown field", "PATCH", "/api/v1/services/Files", `{"nmae":"x"}`, "nmae", "accepted fields"},
		{"credential without value", "POST", "/api/v1/credentials", `{"label":"L"}`, "value", "missing required"},
		{"credential scheme", "POST", "/api/v1/credentials", `{"label":"L","value":"v","scheme":"magic"}`, "scheme", "magic"},
		{"credential env name", "POST", "/api/v1/credentials", `{"label":"L","value":"v","env_name":"bad-name"}`, "env_name", "A-Z"},
		{"rotate without value", "POST", "/api/v1/credentials/cred_stripe/rotate", `{}`, "value", "missing required"},
		{"playbook without body", "POST", "/api/v1/playbooks", `{"title":"T"}`, "body", "missing required"},
		{"triggers as string", "POST", "/api/v1/playbooks", `{"title":"T","body":"b","triggers":"x"}`, "triggers", "array of strings"},
		{"too many triggers", "POST", "/api/v1/playbooks", map[string]any{"title": "T", "body": "b", "triggers": triggers}, "triggers", "16"},
		{"version not a number", "POST", "/api/v1/playbooks/pb_refund/versions/abc/restore", nil, "version", "positive integer"},
		{"version zero", "POST", "/api/v1/playbooks/pb_refund/versions/0/restore", nil, "version", "positive integer"},
		{"dependents card type", "GET", "/api/v1/dependents?card_type=widget&card_id=x", nil, "card_type", "service, credential, playbook"},
		{"dependents without card id", "GET", "/api/v1/dependents?card_type=service", nil, "card_id", "required"},
		{"unknown query parameter", "GET", "/api/v1/decks/Main?limit=5", nil, "limit", "takes none"},
		{"list limit zero", "GET", "/api/v1/decks?limit=0", nil, "limit", "whole number from 1 to 1000"},
		{"list cursor not ours", "GET", "/api/v1/decks?cursor=abc", nil, "cursor", "is not one this list gave"},
		{"list cursor of another list", "GET", "/api/v1/services?cursor=" + cursor{List: "listDecks", Next: 1, Key: "x"}.encode(), nil, "cursor", "is not one this list gave"},
		{"repeated query parameter", "GET", "/api/v1/export?deck=a&deck=b", nil, "deck", "more than once"},
		{"limit not a number", "GET", "/api/v1/tool-calls?limit=ten", nil, "limit", "whole number from 1 to 1000"},
		{"limit zero", "GET", "/api/v1/tool-calls?limit=0", nil, "limit", "whole number from 1 to 1000"},
		{"limit over the maximum", "GET", "/api/v1/tool-calls?limit=1001", nil, "limit", "whole number from 1 to 1000"},
		{"budget under the minimum", "GET", "/api/v1/decks/Main/snapshot?budget=10", nil, "budget", "whole number from 1000 to 100000"},
		{"dry_run not boolean", "POST", "/api/v1/import?dry_run=maybe", `{"format":"agent-deck-bundle","version":1}`, "dry_run", "true or false"},
		{"display without workspace", "GET", "/api/v1/display", nil, "workspace", "required"},
		{"token id not a uuid", "DELETE", "/api/v1/tokens/not-a-uuid", nil, "token", "UUID"},
		{"token scope", "POST", "/api/v1/tokens", `{"name":"n","scope":"root"}`, "scope", "root"},
		{"exec id not a number", "POST", "/api/v1/exec/abc/finish", `{"exit_code":0}`, "exec", "positive integer"},
		{"exit code as string", "POST", "/api/v1/exec/1/finish", `{"exit_code":"0"}`, "exit_code", "integer"},
		{"over-long path id", "GET", "/api/v1/decks/" + strings.Repeat("d", maxParamChars+1), nil, "deck", "at most 200"},
		{"body on a bodiless route", "POST", "/api/v1/services/Files/check", `{"force":true}`, "", "takes no request body"},
	}
}

func TestBadInputIsRefusedAndChangesNothing(t *testing.T) {
	s := newTestServer(t, Options{})
	seed(t, s)
	before := s.snapshot(t)
	for _, tc := range badInputCases() {
		t.Run(tc.name, func(t *testing.T) {
			r := s.do(t, s.admin, tc.method, tc.path, tc.body)
			e := r.errorBody()
			if r.status != http.StatusBadRequest || e.Code != backend.CodeInvalidArgument {
				t.Fatalf("status %d code %q, want 400 INVALID_ARGUMENT: %s", r.status, e.Code, r.body)
			}
			if got, _ := e.Details["field"].(string); got != tc.field {
				t.Errorf("details.field = %q, want %q (message %q)", got, tc.field, e.Detail)
			}
			if tc.field != "" && !strings.Contains(e.Detail, tc.field) {
				t.Errorf("message %q does not name the field %q", e.Detail, tc.field)
			}
			if !strings.Contains(e.Detail, tc.message) {
				t.Errorf("message %q lacks %q", e.Detail, tc.message)
			}
			for _, goText := range []string{"json:", "unmarshal", "Go struct", "backend.", "strconv"} {
				if strings.Contains(e.Detail, goText) {
					t.Errorf("message %q carries Go error text %q", e.Detail, goText)
				}
			}
		})
	}
	if diff := cmp.Diff(before, s.snapshot(t)); diff != "" {
		t.Errorf("refused requests changed the database (-before +after):\n%s", diff)
	}
}

func TestImportHasItsOwnBodyLimit(t *testing.T) {
	s := newTestServer(t, Options{MaxBodyBytes: 1 << 10, MaxImportBytes: 8 << 10})
	pad := strings.Repeat(" ", 4<<10)
	cases := []struct {
		name, method, path, body string
		tooLarge                 bool
	}{
		{"small route over the default limit", "POST", "/api/v1/decks", `{"name":"x"}` + pad, true},
		{"import under its own limit", "POST", "/api/v1/import?dry_run=true", `{"format":"agent-deck-bundle","version":1}` + pad, false},
		{"import over its limit", "POST", "/api/v1/import", `{"format":"agent-deck-bundle","version":1}` + pad + pad, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := s.do(t, s.admin, tc.method, tc.path, tc.body)
			msg := r.errorBody().Detail
			if got := strings.Contains(msg, "larger than the limit"); got != tc.tooLarge {
				t.Errorf("status %d message %q; refused for size = %v, want %v", r.status, msg, got, tc.tooLarge)
			}
		})
	}
}
