package mcptools

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestElicitDefaults: SEP-1034 defaults fill what an accepted answer omits, and nothing else.
func TestElicitDefaults(t *testing.T) {
	const schema = `{"type":"object","properties":{
		"name":{"type":"string","default":"John Doe"},"age":{"type":"integer","default":30},
		"score":{"type":"number","default":95.5},"status":{"type":"string","enum":["active","inactive"],"default":"active"},
		"verified":{"type":"boolean","default":true},"nodefault":{"type":"string"},"obj":{"type":"string","default":{"x":1}}}}`
	var s any
	if err := json.Unmarshal([]byte(schema), &s); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		action  mcp.ElicitationResponseAction
		content any
		want    string
	}{
		{"accept with nothing gets every primitive default", mcp.ElicitationResponseActionAccept, nil,
			`{"action":"accept","content":{"age":30,"name":"John Doe","score":95.5,"status":"active","verified":true}}`},
		{"values the agent gave are kept", mcp.ElicitationResponseActionAccept, map[string]any{"name": "Ada", "verified": false},
			`{"action":"accept","content":{"age":30,"name":"Ada","score":95.5,"status":"active","verified":false}}`},
		{"decline is left alone", mcp.ElicitationResponseActionDecline, nil, `{"action":"decline"}`},
		{"non-object content is left alone", mcp.ElicitationResponseActionAccept, "text", `{"action":"accept","content":"text"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: tc.action, Content: tc.content}}
			withElicitationDefaults(s, res)
			got, _ := json.Marshal(res)
			if string(got) != tc.want {
				t.Errorf("got %s\nwant %s", got, tc.want)
			}
		})
	}
}
