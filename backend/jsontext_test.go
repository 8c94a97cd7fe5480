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
		{"same key in sibling objects", `{"a":{"k":1},"b":{"k":2},"l":[{"k":1},{"k":2}]}`, "", true},
		{"key text as a value", `{"k":"k","v":["k","k"],"w":{"k":"k"}}`, "", true},
		{"keys differing in case", `{"Name":1,"name":2}`, "", true},
		{"brace and comma in strings", `{"a":"},{\"a\":","b":"\"a\""}`, "", true},
		{"duplicate key", `{"name":"a","name":"b"}`, "name", false},
		{"duplicate after nesting", `{"a":{"x":[1,{"y":2}],"z":3},"a":1}`, "a", false},
		{"duplicate nested", `{"h":{"X":"1","Y":"2","X":"3"}}`, "h.X", false},
		{"duplicate in an array element", `[{"a":1},{"b":1,"b":2}]`, "[1].b", false},
		{"duplicate spelled with an escape", `{"name":1,"\u006eame":2}`, "name", false},
		{"duplicate among many keys", `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,` +
			`"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k3":3}`, "k3", false},
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
