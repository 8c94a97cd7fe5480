package toolsearch

import (
	"context"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

func TestRanking(t *testing.T) {
	docs := []backend.ToolDoc{
		{ID: "gh/create_pull_request", Name: "create_pull_request", Title: "Create pull request",
			Description: "Open a pull request on GitHub.", Params: "owner repo title head base", Service: "github"},
		{ID: "gl/create_merge_request", Name: "create_merge_request", Title: "Create merge request",
			Description: "Open a merge request on GitLab.", Params: "owner repo title head base", Service: "gitlab"},
		{ID: "sl/post_message", Name: "post_message", Title: "Post message",
			Description: "Send a message to a Slack channel.", Params: "channel text", Service: "slack"},
	}
	idx, err := New().Index(docs)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	tests := []struct {
		query string
		first string
		total int
	}{
		{"open a merge request on gitlab", "gl/create_merge_request", 2},
		{"send a slack message", "sl/post_message", 1},
		{"createPullRequest", "gh/create_pull_request", 2},
		{"the a of", "", 0}, // stop words only
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			hits, total, err := idx.Search(context.Background(), tt.query, 5)
			if err != nil {
				t.Fatal(err)
			}
			if total != tt.total {
				t.Errorf("total %d, want %d (hits %v)", total, tt.total, hits)
			}
			if tt.first != "" && (len(hits) == 0 || hits[0].ID != tt.first) {
				t.Errorf("hits %v, want %s first", hits, tt.first)
			}
		})
	}
}

func TestWords(t *testing.T) {
	for in, want := range map[string]string{"create_merge_request": "create merge request",
		"createMergeRequest": "create Merge Request", "a-b.c/d": "a b c d"} {
		if got := words(in); got != want {
			t.Errorf("words(%q) = %q, want %q", in, got, want)
		}
	}
}
