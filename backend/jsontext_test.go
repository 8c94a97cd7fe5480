package backend_test

import (
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

func TestCheckJSONText(t *testing.T) {
	cases := []struct {
		name, raw, field string
		ok               bool
	}{
		{"plain", `{"name":"deck","tags":["a","b"]}`, "", true},
		{"valid pair", `{"name":"\ud83d\ude00"}`, "", true},
		{"escaped backslash then u", `{"name":"\\ud800"}`, "", true},
		{"other escapes", `{"name":"\u00e9\n\"\\"}`, "", true},
		{"utf-8 text", `{"name":"déjà vu ✓"}`, "", true},
		{"lone high surrogate", `{"name":"\ud800"}`, "name", false},
		{"lone low surrogate", `{"name":"x\uDC00y"}`, "name", false},
		{"high then not low", `{"name":"\ud800\u0041"}`, "name", false},
		{"invalid byte", "{\"name\":\"a\xffb\"}", "name", false},
		{"nested in array", `{"a":{"b":["ok","\ud800"]}}`, "a.b[1]", false},
		{"in a key", "{\"x\xff\":1}", "x\ufffd", false},
		{"after a nested object", `{"a":{"b":1},"c":"\udfff"}`, "c", false},
		{"top-level string", `"\ud800"`, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := backend.CheckJSONText([]byte(tc.raw))
			if tc.ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			e := backend.AsError(err)
			if err == nil || e.Code != backend.CodeInvalidArgument {
				t.Fatalf("err = %v, want INVALID_ARGUMENT", err)
			}
			if got, _ := e.Details["field"].(string); got != tc.field {
				t.Errorf("field = %q, want %q (%v)", got, tc.field, err)
			}
		})
	}
}
