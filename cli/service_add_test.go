package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHeaderPairs holds issue 27 item 5: --header takes HTTP's "Name: value" as well as
// Name=value; the first separator ends the name, so the other may appear in the value.
func TestHeaderPairs(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want map[string]string
		err  bool
	}{
		{"HTTP form", []string{"X-Team: core"}, map[string]string{"X-Team": "core"}, false},
		{"HTTP form without a space", []string{"X-Team:core"}, map[string]string{"X-Team": "core"}, false},
		{"pair form", []string{"X-Team=core"}, map[string]string{"X-Team": "core"}, false},
		{"= in an HTTP value", []string{"X-Filter: a=b"}, map[string]string{"X-Filter": "a=b"}, false},
		{": in a pair value", []string{"X-Url=http://x"}, map[string]string{"X-Url": "http://x"}, false},
		{"both forms at once", []string{"X-A: 1", "X-B=2"}, map[string]string{"X-A": "1", "X-B": "2"}, false},
		{"an empty HTTP value", []string{"X-Empty:"}, map[string]string{"X-Empty": ""}, false},
		{"no separator", []string{"X-Team"}, nil, true},
		{"no name", []string{": core"}, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := headerPairs(tc.in)
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error %v", err, tc.err)
			}
			if diff := cmp.Diff(tc.want, got); !tc.err && diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}
