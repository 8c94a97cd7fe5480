// Package markdown turns playbook markdown into HTML a person's browser may show: CommonMark with
// GitHub's extensions (tables, strikethrough, autolinks, task lists) by goldmark, then sanitized
// by bluemonday, so no markup an agent or a bundle wrote can run in the dashboard. Agents never
// see this HTML: they read the markdown itself. It implements backend.MarkdownRenderer.
package markdown

import (
	"bytes"
	"html"
	"regexp"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/agent-deck/agent-deck/backend"
)

// Renderer renders and sanitizes; it is safe for concurrent use.
type Renderer struct {
	md     goldmark.Markdown
	policy *bluemonday.Policy
}

var _ backend.MarkdownRenderer = (*Renderer)(nil)

// New returns a renderer of CommonMark + GFM whose output keeps only the elements and attributes
// of user-generated content (bluemonday's UGC policy) plus task-list checkboxes. Raw HTML in the
// source is not rendered at all; table alignment is an align attribute, since the dashboard's
// Content-Security-Policy refuses inline styles.
func New() *Renderer {
	md := goldmark.New(goldmark.WithExtensions(
		extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
		extension.Strikethrough, extension.Linkify, extension.TaskList))
	p := bluemonday.UGCPolicy()
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^checkbox$`)).OnElements("input")
	p.AllowAttrs("checked", "disabled").OnElements("input")
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^language-[\w+#-]{1,40}$`)).OnElements("code")
	p.AllowAttrs("align").Matching(regexp.MustCompile(`^(left|right|center)$`)).OnElements("th", "td")
	p.RequireNoReferrerOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true)
	return &Renderer{md: md, policy: p}
}

// RenderHTML returns the sanitized HTML of src. goldmark renders any input; should it fail, the
// text is shown as preformatted text, escaped.
func (r *Renderer) RenderHTML(src string) string {
	var out bytes.Buffer
	if err := r.md.Convert([]byte(src), &out); err != nil {
		return "<pre>" + html.EscapeString(src) + "</pre>"
	}
	return r.policy.Sanitize(out.String())
}
