package proxy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

// TestValidateArgsRemembersOnlyAcceptance: a text the schema accepted is accepted again
// without validation; a refusal is refused every time, also after acceptances, and other
// bytes are always validated, also when the set of accepted texts was full.
func TestValidateArgsRemembersOnlyAcceptance(t *testing.T) {
	ts := &toolSet{schemas: map[string]*compiled{}}
	tool := backend.DownstreamTool{Name: "echo", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`)}
	check := func(args string, ok bool) {
		t.Helper()
		err := ts.validateArgs(tool, json.RawMessage(args))
		if (err == nil) != ok {
			t.Fatalf("validateArgs(%s) = %v, want accepted %v", args, err, ok)
		}
	}
	for range 2 {
		check(`{"message":"hi"}`, true)
		check(`{"message":1}`, false)
		check(`{}`, false)
	}
	if _, known := ts.acceptedBefore(tool, json.RawMessage(`{"message":1}`)); known {
		t.Fatal("a refused text was remembered")
	}
	for i := range 3 * validArgsMax {
		check(`{"message":"`+strings.Repeat("x", i)+`"}`, true)
		check(`{"message":`+strings.Repeat("1", i+1)+`}`, false)
	}
	if n := len(ts.schemas["echo"].valid); n > validArgsMax {
		t.Fatalf("%d accepted texts kept, at most %d", n, validArgsMax)
	}
	long := `{"message":"` + strings.Repeat("y", validArgsMaxLen) + `"}`
	check(long, true)
	if _, known := ts.acceptedBefore(tool, json.RawMessage(long)); known {
		t.Fatal("a text longer than the bound was remembered")
	}
}
