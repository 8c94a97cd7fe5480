package proxy

import (
	"encoding/json"
	"mime"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

// TestMediaTypeOfIsParseMediaType: the shortcut gives mime.ParseMediaType's media type for
// every Content-Type, the common ones and the odd ones alike.
func TestMediaTypeOfIsParseMediaType(t *testing.T) {
	for _, ct := range []string{"application/json", "text/event-stream", " Text/Event-Stream ",
		"APPLICATION/JSON", "text/event-stream; charset=utf-8", "application/json;", "", "text/",
		"text/html", "text/event-stream; a=1; a=2", "text/event-ſtream", "application/json; bad"} {
		want, _, _ := mime.ParseMediaType(ct)
		if got := mediaTypeOf(ct); got != want {
			t.Errorf("mediaTypeOf(%q) = %q, mime.ParseMediaType %q", ct, got, want)
		}
	}
}

// TestObjectFieldsKeysAsDecoded: member names read without the decoder are what json.Unmarshal
// makes of them, escaped or not.
func TestObjectFieldsKeysAsDecoded(t *testing.T) {
	doc := `{"content":1, "is\u0045rror":true,"_meta":{},"a\"b":2,"é":3,"":4,"tab\there":5}`
	fields, ok := objectFields([]byte(doc))
	if !ok {
		t.Fatal("not split")
	}
	var want []string
	for _, f := range fields {
		var key string
		if err := json.Unmarshal([]byte(doc[f.start:backend.SkipJSONString([]byte(doc), f.start)]), &key); err != nil {
			t.Fatal(err)
		}
		want = append(want, key)
		if f.key != key {
			t.Errorf("key %q, json.Unmarshal %q", f.key, key)
		}
	}
	if len(want) != 7 || want[1] != "isError" {
		t.Fatalf("keys %q", want)
	}
	if _, isError := passResult([]byte(doc)); !isError {
		t.Error("an escaped isError was not read")
	}
}
