package backend

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDisplaySummary(t *testing.T) {
	long := strings.Repeat("very long deck name ", 10)
	tests := []struct {
		name   string
		deck   string
		counts DeckCounts
		badge  string
		want   string
	}{
		{"plural", "dev", DeckCounts{2, 3, 4}, "moss", "◆ dev · 2 MCP · 3 keys · 4 playbooks · ⌘moss"},
		{"singular", "dev", DeckCounts{1, 1, 1}, "fern", "◆ dev · 1 MCP · 1 key · 1 playbook · ⌘fern"},
		{"empty deck", "ops", DeckCounts{}, "oak", "◆ ops · 0 MCP · 0 keys · 0 playbooks · ⌘oak"},
		{"no badge", "ops", DeckCounts{1, 0, 2}, "", "◆ ops · 1 MCP · 0 keys · 2 playbooks"},
		{"whitespace collapsed", "my\n  deck", DeckCounts{}, "oak", "◆ my deck · 0 MCP · 0 keys · 0 playbooks · ⌘oak"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DisplaySummary(tt.deck, tt.counts, tt.badge); got != tt.want {
				t.Errorf("DisplaySummary = %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("long name cut to 120 characters", func(t *testing.T) {
		got := DisplaySummary(long, DeckCounts{12, 34, 56}, "zephyr99")
		if n := utf8.RuneCountInString(got); n != MaxSummaryChars {
			t.Errorf("length %d, want %d: %q", n, MaxSummaryChars, got)
		}
		if !strings.Contains(got, "… · 12 MCP · 34 keys · 56 playbooks · ⌘zephyr99") {
			t.Errorf("the name is not cut with … before the counts: %q", got)
		}
	})
}

func TestPickBadge(t *testing.T) {
	t.Run("unique while the pool lasts", func(t *testing.T) {
		taken := map[string]bool{}
		for i := 0; i < BadgePoolSize; i++ {
			b := pickBadge(taken)
			if taken[b] || strings.ContainsAny(b, "0123456789") {
				t.Fatalf("draw %d: %q is taken or has a digit", i, b)
			}
			taken[b] = true
		}
		b := pickBadge(taken)
		if !strings.HasSuffix(b, "2") || taken[b] {
			t.Fatalf("after the pool ran out got %q, want a free word+digit", b)
		}
	})
	t.Run("words are short and lower case", func(t *testing.T) {
		for _, w := range badgePool {
			if w != strings.ToLower(w) || len(w) > 8 || w == "" {
				t.Errorf("badge word %q", w)
			}
		}
	})
	t.Run("digits keep going", func(t *testing.T) {
		taken := map[string]bool{}
		for _, w := range badgePool {
			taken[w] = true
			taken[w+"2"] = true
		}
		if b := pickBadge(taken); !strings.HasSuffix(b, strconv.Itoa(3)) {
			t.Errorf("got %q, want a word+3", b)
		}
	})
}

func TestWorkspaceDepth(t *testing.T) {
	tests := []struct {
		root, path string
		ok         bool
	}{
		{"/home/a/proj", "/home/a/proj", true},
		{"/home/a/proj", "/home/a/proj/sub/dir", true},
		{"/home/a/proj", "/home/a/project", false},
		{"/home/a/proj", "/home/a", false},
		{"/", "/anything", true},
		{"C:/Users/a/proj", "c:/users/a/proj/src", true},
		{"", "/x", false},
	}
	for _, tt := range tests {
		t.Run(tt.root+" "+tt.path, func(t *testing.T) {
			_, ok := workspaceDepth(normWorkspace(tt.root), normWorkspace(tt.path))
			if ok != tt.ok {
				t.Errorf("workspaceDepth(%q, %q) ok = %v, want %v", tt.root, tt.path, ok, tt.ok)
			}
		})
	}
	if got := normWorkspace(`C:\Users\a\proj\`); got != "C:/Users/a/proj" {
		t.Errorf("normWorkspace = %q", got)
	}
}
