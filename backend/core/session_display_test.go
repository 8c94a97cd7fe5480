package core

import (
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

func TestBadgePool(t *testing.T) {
	t.Run("words are short, lower case, without digits and distinct", func(t *testing.T) {
		seen := map[string]bool{}
		for _, w := range badgePool {
			if w != strings.ToLower(w) || len(w) > 8 || w == "" || strings.ContainsAny(w, "0123456789") || seen[w] {
				t.Errorf("badge word %q", w)
			}
			seen[w] = true
		}
	})
	t.Run("shuffled copies", func(t *testing.T) {
		a, b := shuffledBadgePool(), shuffledBadgePool()
		if len(a) != BadgePoolSize || strings.Join(a, ",") == strings.Join(b, ",") {
			t.Errorf("two shuffles of %d words are equal", len(a))
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
