package mcptools

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

func specNamed(t testing.TB, name string) *ToolSpec {
	t.Helper()
	for _, tool := range Tools() {
		if tool.Name == name {
			return &tool
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// checkDecoded asserts decodeArgs never panics, and fails only with INVALID_ARGUMENT errors that
// name the tool's parameters.
func checkDecoded(t *testing.T, spec *ToolSpec, raw []byte) map[string]any {
	vals, _, err := decodeArgs(spec, raw)
	if err == nil {
		return vals
	}
	e := backend.AsError(err)
	if e.Code != backend.CodeInvalidArgument || e.Message == "" || e.Hint != spec.paramList() {
		t.Fatalf("decodeArgs(%q) = %v, want a coded INVALID_ARGUMENT teaching the parameters", raw, err)
	}
	return nil
}

func FuzzCallServiceToolArgs(f *testing.F) {
	for _, seed := range []string{
		`{"serviceId":"s","toolName":"echo","arguments":{"message":"hi"}}`,
		`{"serviceId":"s","toolName":"echo","arguments":"{\"message\":\"hi\"}"}`,
		`{"serviceId":"s","toolName":"echo","arguments":""}`,
		`{"serviceId":"s","toolName":"echo","arguments":"[1,2]"}`,
		`{"serviceId":"s","toolName":"echo","arguments":null}`,
		`{"serviceId":1,"toolName":true}`,
		`{"serviceId":"s"}`,
		`[]`, `null`, `"x"`, `{`, `{"extra":1,"serviceId":"s","toolName":"t"}`,
	} {
		f.Add([]byte(seed))
	}
	spec := specNamed(f, "call_service_tool")
	f.Fuzz(func(t *testing.T, raw []byte) {
		vals := checkDecoded(t, spec, raw)
		if vals == nil {
			return
		}
		c := &call{vals: vals}
		if c.str("serviceId") == "" && vals["serviceId"] == nil {
			t.Fatalf("required serviceId missing from %q", raw)
		}
		if args := c.raw("arguments"); args != nil {
			var obj map[string]json.RawMessage
			if json.Unmarshal(args, &obj) != nil || obj == nil {
				t.Fatalf("arguments %q decoded to a non-object", args)
			}
		}
	})
}

func FuzzManageDeckCardArgs(f *testing.F) {
	for _, seed := range []string{
		`{"action":"link","card_type":"service","card_id":"x","position":0}`,
		`{"action":"unlink","card_type":"credential","card_id":"cred_x"}`,
		`{"action":"reorder","card_type":"playbook","ordered_card_ids":["a","b"]}`,
		`{"action":"explode","card_type":"service"}`,
		`{"action":"link","card_type":"service","position":1.5}`,
		`{"action":"link","card_type":"service","position":1e30}`,
		`{"action":"link","card_type":"service","ordered_card_ids":"a,b"}`,
		`{}`, `[`, `{"action":null,"card_type":null}`,
	} {
		f.Add([]byte(seed))
	}
	spec := specNamed(f, "manage_deck_card")
	f.Fuzz(func(t *testing.T, raw []byte) {
		vals := checkDecoded(t, spec, raw)
		if vals == nil {
			return
		}
		c := &call{vals: vals}
		in := core.DeckCardChange{Action: c.str("action"), CardType: backend.CardType(c.str("card_type")),
			CardID: c.str("card_id"), Position: c.optInt("position"), OrderedCardIDs: c.strs("ordered_card_ids")}
		if !containsStr(core.DeckCardActions, in.Action) {
			t.Fatalf("action %q passed decoding", in.Action)
		}
		if err := core.CheckDeckCardChange(context.Background(), in); err != nil && backend.ErrorCode(err) != backend.CodeInvalidArgument {
			t.Fatalf("CheckDeckCardChange(%+v) = %v, want nil or INVALID_ARGUMENT", in, err)
		}
	})
}

// FuzzDecodeMembers: the arguments' members are split as json.Unmarshal into a
// map[string]json.RawMessage splits them, for any input (its seeds run with the tests).
func FuzzDecodeMembers(f *testing.F) {
	for _, seed := range []string{
		`{"serviceId":"s","toolName":"echo","arguments":{"message":"hi"}}`,
		` { "a" : [1, {"b":"}"}] , "a":"last", "\u0041":true, "é":null, "":"", "x\"y":1.5e3 } `,
		`{"k":"\u003c\\ \" ]}"}`, "{\"\xff\":1}", `{}`, `[]`, `null`, `"x"`, `12`, `{`, `{"a":1,}`,
		`{"a" 1}`, `{"a":1}{"b":2}`, "{\"a\":\"\t\"}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		want := map[string]json.RawMessage{}
		werr := json.Unmarshal(raw, &want)
		got := map[string]json.RawMessage{}
		ok := decodeMembers(raw, got)
		if ok != (werr == nil) {
			t.Fatalf("%q: decodeMembers %v, json.Unmarshal %v", raw, ok, werr)
		}
		if !ok {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%q: members %q, json.Unmarshal %q", raw, got, want)
		}
		for k, v := range want {
			if string(got[k]) != string(v) {
				t.Fatalf("%q: member %q is %q, json.Unmarshal %q", raw, k, got[k], v)
			}
		}
	})
}

// FuzzSplitResult: a downstream's result is read as json.Unmarshal reads it (decodeResult),
// for any input (its seeds run with the tests).
func FuzzSplitResult(f *testing.F) {
	for _, seed := range []string{
		downstreamResult, `{"content":[{"type":"text","text":"a"}, 1 ,"x",[]],"isError":true}`,
		`{"CONTENT":[{"a":1}],"IsError":null,"structuredcontent":null}`, `{"content":null}`,
		`{"content":[1],"content":[2,3],"isError":true,"isError":null}`, `{"content":"x"}`,
		`{"isError":"yes"}`, `{"isError":1}`, `{"content":{}}`, `null`, ` [] `, `"x"`, `{`, `{}`,
		`{"structuredContent":{"a":1},"structuredContent":null}`, `{"\u0063ontent":[1]}`, `{"ſtructuredContent":1}`,
		`{"content":[],"other":{"content":[9]},"isError":false}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		want, wok := decodeResult(raw)
		got, ok := splitResult(raw)
		if ok != wok {
			t.Fatalf("%q: splitResult %v, decoder %v", raw, ok, wok)
		}
		if !ok {
			return
		}
		if got.isError != want.isError || string(got.structured) != string(want.structured) ||
			len(got.content) != len(want.content) || (got.content == nil) != (want.content == nil) {
			t.Fatalf("%q: split %+v, decoded %+v", raw, got, want)
		}
		for i := range want.content {
			if string(got.content[i]) != string(want.content[i]) {
				t.Fatalf("%q: block %d %q, decoded %q", raw, i, got.content[i], want.content[i])
			}
		}
	})
}

// FuzzPeekMessage: a request body is read as json.Unmarshal reads it, for any input (its
// seeds run with the tests).
func FuzzPeekMessage(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"call_service_tool","arguments":{"a":1},"_meta":{"progressToken":"t"}}}`,
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientInfo":{"name":"c"},"capabilities":{"elicitation":{},"sampling":null,"roots":{"listChanged":true}}}}`,
		`{"JSONRPC":"2.0","ID":"x","Method":"m","PARAMS":{"NAME":"n","requestid":3}}`, `{"id":"adk-1","result":{}}`,
		`{"id":null,"error":{"code":1}}`, `{"method":null,"params":null}`, `{"method":1}`, `{"params":[]}`,
		`{"params":{"clientInfo":"x"}}`, `{"params":{"clientInfo":{"name":2}}}`, `{"params":{"capabilities":1}}`,
		`{"params":{"name":"a"},"params":{"arguments":{}}}`, `{"method":"a","method":"b"}`, `{"\u006dethod":"x"}`,
		`{"méthod":"x","method":"y"}`, `{"method":"caf\u00e9 \"q\""}`, `{"params":{"task":{},"inputResponses":[],"requestState":"s"}}`,
		`null`, `[]`, `"x"`, `{`, `{}`, ` {"id":1} `,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want, got peekMessage
		wok := want.decode(raw)
		if ok := got.read(raw); ok != wok {
			t.Fatalf("%q: read %v, decoder %v", raw, ok, wok)
		}
		if wok && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: read %+v, decoded %+v", raw, got, want)
		}
	})
}

// FuzzReadID: a request id is decoded as json.Unmarshal into any decodes it.
func FuzzReadID(f *testing.F) {
	for _, seed := range []string{`7`, `-0`, `1.5e3`, `1e400`, `12345678901234567890`, `"adk-1"`, `"a\"b"`, `"é"`, `null`, `true`, `{}`, `[1]`, ``} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) > 0 && !json.Valid(raw) {
			return // ids come from a valid body
		}
		var want, got any
		_ = json.Unmarshal(raw, &want)
		readID(raw, &got)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: %#v, json.Unmarshal %#v", raw, got, want)
		}
	})
}
