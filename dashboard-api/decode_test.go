package dashboardapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

func TestDecodeBodyRefusesBadInput(t *testing.T) {
	cases := []struct {
		name    string
		body    string
		into    func(body []byte) error
		field   string // expected details.field, "" for none
		message string // substring of the message
	}{
		{"empty", "", decodeAs[core.DeckInput], "", "request body is empty; expected a JSON object with fields name"},
		{"whitespace", " \n ", decodeAs[core.DeckInput], "", "is empty"},
		{"array", `[1]`, decodeAs[core.DeckInput], "", "must be a JSON object"},
		{"null", `null`, decodeAs[core.DeckInput], "", "must be a JSON object"},
		{"string", `"x"`, decodeAs[core.DeckInput], "", "must be a JSON object"},
		{"truncated", `{"name":"x"`, decodeAs[core.DeckInput], "", "not valid JSON (problem at byte"},
		{"trailing data", `{"name":"x"} {}`, decodeAs[core.DeckInput], "", "not valid JSON"},
		{"wrong type", `{"name":5}`, decodeAs[core.DeckInput], "name", `field "name" must be a string, got a number`},
		{"unknown field", `{"name":"x","nme":"y"}`, decodeAs[core.DeckInput], "nme", `unknown field "nme"; accepted fields: name`},
		{"other case", `{"Name":"x"}`, decodeAs[core.DeckInput], "Name", `unknown field "Name"`},
		{"missing required", `{}`, decodeAs[core.DeckInput], "name", `missing required field "name" (a string)`},
		{"null required", `{"name":null}`, decodeAs[core.DeckInput], "name", `missing required field "name"`},
		{"array of strings", `{"name":"a","type":"mcp","local_args":"x"}`, decodeAs[core.ServiceInput], "local_args",
			`field "local_args" must be an array of strings, got a string`},
		{"array element", `{"name":"a","type":"mcp","local_args":[1]}`, decodeAs[core.ServiceInput], "local_args",
			`must be an array of strings, got a number`},
		{"fraction for integer", `{"name":"a","type":"mcp","timeout_seconds":1.5}`, decodeAs[core.ServiceInput],
			"timeout_seconds", `field "timeout_seconds" must be an integer, got a number`},
		{"map value", `{"name":"a","type":"mcp","headers":{"X-A":1}}`, decodeAs[core.ServiceInput], "headers",
			`must be an object whose values are strings, got a number`},
		{"embedded field type", `{"card_type":"service","card_id":7}`, decodeAs[core.LinkCardInput], "card_id",
			`field "card_id" must be a string, got a number`},
		{"pointer field", `{"card_type":"service","card_id":"x","position":"1"}`, decodeAs[core.LinkCardInput],
			"position", `field "position" must be an integer, got a string`},
		{"path-only field", `{"card_type":"service","card_id":"x","deck":"d"}`, decodeAs[core.LinkCardInput],
			"deck", `unknown field "deck"; accepted fields: card_type, card_id, position`},
		{"bool", `{"title":"t","body":"b","auto_detect_dependencies":"yes"}`, decodeAs[backend.PlaybookInput],
			"auto_detect_dependencies", `must be a boolean, got a string`},
		{"raw empty", ``, decodeAs[json.RawMessage], "", "request body is empty"},
		{"raw invalid", `{"format":`, decodeAs[json.RawMessage], "", "not valid JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.into([]byte(tc.body))
			e, ok := err.(*backend.Error)
			if !ok || e.Code != backend.CodeInvalidArgument {
				t.Fatalf("got %v, want an INVALID_ARGUMENT *backend.Error", err)
			}
			if !strings.Contains(e.Message, tc.message) {
				t.Errorf("message %q lacks %q", e.Message, tc.message)
			}
			if got, _ := e.Details["field"].(string); got != tc.field {
				t.Errorf("details.field = %q, want %q", got, tc.field)
			}
			for _, goText := range []string{"json:", "unmarshal", "Go value", "main.", "backend."} {
				if strings.Contains(e.Message, goText) {
					t.Errorf("message %q carries Go error text %q", e.Message, goText)
				}
			}
		})
	}
}

func decodeAs[T any](body []byte) error {
	var v T
	return decodeBody(body, &v)
}

func TestDecodeBodyAcceptsGoodInput(t *testing.T) {
	var link core.LinkCardInput
	if err := decodeBody([]byte(`{"card_type":"service","card_id":"x","position":2}`), &link); err != nil {
		t.Fatal(err)
	}
	pos := 2
	want := core.LinkCardInput{CardRef: core.CardRef{CardType: "service", CardID: "x"}, Position: &pos}
	if diff := cmp.Diff(want, link); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}

	var call core.CallInput
	if err := decodeBody([]byte(`{"tool_name":"echo","arguments":{"a":[1,{"b":null}]}}`), &call); err != nil {
		t.Fatal(err)
	}
	if string(call.Arguments) != `{"a":[1,{"b":null}]}` {
		t.Errorf("arguments = %s", call.Arguments)
	}

	var raw json.RawMessage
	if err := decodeBody([]byte(" {\"format\":\"agent-deck-bundle\"}\n"), &raw); err != nil {
		t.Fatal(err)
	}
	if string(raw) != `{"format":"agent-deck-bundle"}` {
		t.Errorf("raw = %s", raw)
	}
}

func TestJSONFieldsFollowEncodingJSON(t *testing.T) {
	got := map[string]bool{}
	for _, f := range jsonFields(reflect.TypeFor[core.DeckSnapshot]()) {
		got[f.name] = f.required
	}
	want := map[string]bool{"id": true, "name": true, "created_at": true, "updated_at": true,
		"services": true, "credentials": true, "playbooks": true, "owner": false, "sharing": false, "shared_with": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DeckSnapshot fields (-want +got)\n%s", diff)
	}
}
