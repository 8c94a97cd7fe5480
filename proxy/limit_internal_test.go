package proxy

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestLineCap: lines within the cap pass unchanged; a longer one is cut (at most the cap of it
// passes, ended by a newline), then answered with an error to its id wherever the encoder put
// the id: first, or last as the TypeScript SDK does.
func TestLineCap(t *testing.T) {
	const max = 30
	big := strings.Repeat("x", 5000)
	answer := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32099,"message":"result over the hard cap"}}` + "\n"
	}
	cases := []struct {
		name  string
		in    string
		cut   bool   // the first line is cut
		after string // what follows the first line (the whole output when nothing is cut)
		cutID string
	}{
		{"small lines pass", "{\"id\":1}\n{\"id\":2}\n", false, "{\"id\":1}\n{\"id\":2}\n", ""},
		{"id first", `{"jsonrpc":"2.0","id":"adk-7","result":{"text":"` + big + `"}}` + "\n{\"id\":2}\n",
			true, answer(`"adk-7"`) + "{\"id\":2}\n", `"adk-7"`},
		{"id last, nested ids ignored", `{"result":{"id":"inner","text":"` + big + `"},"jsonrpc":"2.0","id":42}` + "\n",
			true, answer("42"), "42"},
		{"no id: only cut", `"` + big + `"` + "\n{}\n", true, "{}\n", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var cut cutIDs
			out, err := io.ReadAll(newLineCap(iotest.OneByteReader(strings.NewReader(tc.in)), max, &cut))
			if err != nil {
				t.Fatal(err)
			}
			got := string(out)
			if !tc.cut {
				if got != tc.after {
					t.Errorf("out = %q, want %q", got, tc.after)
				}
				return
			}
			first, rest, _ := strings.Cut(got, "\n")
			if !strings.HasPrefix(tc.in, first) || len(first) > max+1 || rest != tc.after {
				t.Errorf("out = %q, want at most %d bytes of the line, then %q", got, max+1, tc.after)
			}
			if tc.cutID != "" && !cut.take(tc.cutID) {
				t.Errorf("id %s not recorded as cut", tc.cutID)
			}
		})
	}
}
