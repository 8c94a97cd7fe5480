package core

import (
	"context"

	"github.com/agent-deck/agent-deck/backend"
)

// MarkdownInput is text to preview as a person will read it.
type MarkdownInput struct {
	Markdown string `json:"markdown"`
}

// MarkdownPreview is the sanitized HTML of a preview.
type MarkdownPreview struct {
	HTML string `json:"html"`
}

// PreviewMarkdown renders markdown (CommonMark with GitHub's extensions) as sanitized HTML for
// the dashboard's previews. What agents read stays the markdown: nothing stored changes.
func (s *Hub) PreviewMarkdown(ctx context.Context, in MarkdownInput) (MarkdownPreview, error) {
	if _, err := backend.RequireRead(ctx, "preview markdown"); err != nil {
		return MarkdownPreview{}, err
	}
	if len(in.Markdown) > backend.MaxBodyBytes {
		return MarkdownPreview{}, backend.Invalid("markdown", "at most %d bytes, as a playbook body", backend.MaxBodyBytes)
	}
	if s.cfg.Markdown == nil {
		return MarkdownPreview{}, backend.Errorf(backend.CodeUnavailable, "markdown previews are not available in this process")
	}
	return MarkdownPreview{HTML: s.cfg.Markdown.RenderHTML(in.Markdown)}, nil
}
