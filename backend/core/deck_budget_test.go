package core

import (
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

func TestLayoutPage(t *testing.T) {
	flat := func(n, full, line int) pageCosts {
		return pageCosts{n: n, full: func(int) int { return full }, line: func(int) int { return line }}
	}
	for _, tc := range []struct {
		name  string
		avail int
		types [3]pageCosts
		want  pageLayout
	}{
		{"everything fits in full", 1000, [3]pageCosts{flat(3, 100, 10), flat(2, 50, 5), flat(4, 40, 10)},
			pageLayout{full: [3]int{3, 2, 4}}},
		{"a third for full entries, the rest shared fairly", 900,
			[3]pageCosts{flat(100, 50, 10), flat(100, 50, 10), flat(100, 50, 20)},
			pageLayout{full: [3]int{2, 2, 2}, lines: [3]int{20, 20, 10}}},
		{"a type that needs little leaves its share to the others", 900,
			[3]pageCosts{flat(100, 50, 10), flat(3, 50, 10), flat(100, 50, 10)},
			pageLayout{full: [3]int{2, 2, 2}, lines: [3]int{30, 1, 29}}},
		{"one type only", 300, [3]pageCosts{{}, {}, flat(100, 30, 10)},
			pageLayout{full: [3]int{0, 0, 3}, lines: [3]int{0, 0, 21}}},
		{"nothing", 300, [3]pageCosts{}, pageLayout{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := layoutPage(tc.avail, tc.types)
			if got != tc.want {
				t.Errorf("layoutPage = %+v, want %+v", got, tc.want)
			}
			spent := 0
			for ty, c := range tc.types {
				for i := 0; i < got.full[ty]; i++ {
					spent += c.full(i)
				}
				for i := got.full[ty]; i < got.full[ty]+got.lines[ty]; i++ {
					spent += c.line(i)
				}
			}
			if spent > tc.avail {
				t.Errorf("spent %d of %d", spent, tc.avail)
			}
		})
	}
}

func TestDeckCursor(t *testing.T) {
	c := deckCursor{cardType: backend.CardPlaybook, query: "deploy\nstaging"}
	got, ok := decodeCursor(c.encode([3]int{1, 2, 3}))
	if !ok || got.cardType != backend.CardPlaybook || got.query != c.query || got.offsets != [3]int{1, 2, 3} {
		t.Errorf("round trip: %+v %v", got, ok)
	}
	for _, bad := range []string{"", "!!!", "YzE", (deckCursor{cardType: "deck"}).encode([3]int{}),
		(deckCursor{}).encode([3]int{-1, 0, 0}), "YzIKCjAsMCwwCg"} {
		if _, ok := decodeCursor(bad); ok {
			t.Errorf("decodeCursor(%q) accepted", bad)
		}
	}
	if _, err := checkDeckPage(DeckPageInput{Query: strings.Repeat("q", maxDeckQueryChars+1)}); err == nil {
		t.Error("an over-long query was accepted")
	}
}

// TestEstimateTokensCountsEveryRun: the estimate never drops a run of letters, digits or
// symbols, and costs a non-ASCII character at least a token.
func TestEstimateTokensCountsEveryRun(t *testing.T) {
	for in, min := range map[string]int{
		"": 0, "deploy": 2, "12345": 2, `{"id":"x"}`: 8, "日本": 4, "🚀": 2, "a b": 2,
	} {
		if got := estimateTokens(in); got < min {
			t.Errorf("estimateTokens(%q) = %d, want at least %d", in, got, min)
		}
	}
}
