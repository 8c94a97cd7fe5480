package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPrintTable holds the table printer to what a terminal shows: columns line up by display
// width (a CJK character takes two cells, a combining accent none), two spaces between columns,
// no borders and no trailing spaces. A printer that padded by bytes or by runes fails the wide
// and the decomposed rows.
func TestPrintTable(t *testing.T) {
	cases := []struct {
		name   string
		header []string
		rows   [][]string
		want   string
	}{
		{"plain", []string{"NAME", "ID"}, [][]string{{"github", "svc_1"}, {"a", "svc_22"}},
			"NAME    ID\ngithub  svc_1\na       svc_22\n"},
		{"wide characters", []string{"NAME", "ID"}, [][]string{{"日本語", "a"}, {"plain", "b"}},
			"NAME    ID\n日本語  a\nplain   b\n"},
		{"combining accent", []string{"NAME", "ID"}, [][]string{{"Cafe\u0301", "a"}, {"Cafés", "b"}},
			"NAME   ID\nCafe\u0301   a\nCafés  b\n"},
		{"empty last cell trimmed", []string{"NAME", "NOTE"}, [][]string{{"x", ""}, {"yy", "n"}},
			"NAME  NOTE\nx\nyy    n\n"},
		{"header only", []string{"NAME", "ID"}, nil, "NAME  ID\n"},
		{"punctuation kept", []string{"A", "B"}, [][]string{{"a|b", "*c*"}}, "A    B\na|b  *c*\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := printTable(&b, tc.header, tc.rows); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, b.String()); diff != "" {
				t.Errorf("printTable (-want +got):\n%s", diff)
			}
		})
	}
}
