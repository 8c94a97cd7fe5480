package markdown

import (
	"strings"
	"testing"
)

// TestCommonMarkAndGFM: the cases people meet daily in playbooks render as the CommonMark and
// GFM specifications say (each row names the spec's rule).
func TestCommonMarkAndGFM(t *testing.T) {
	r := New()
	rows := []struct {
		name, src, want string
	}{
		{"a lone asterisk between spaces is not emphasis (CommonMark 6.2, left-flanking)",
			"2 * 3 * 4", "<p>2 * 3 * 4</p>\n"},
		{"asterisks in file globs are not emphasis", "*.go and *.md",
			"<p>*.go and *.md</p>\n"},
		{"one # is a level-1 heading (4.2)", "# Title", "<h1>Title</h1>\n"},
		{"three # is a level-3 heading", "### Steps", "<h3>Steps</h3>\n"},
		{"wrapped lines stay one paragraph (4.8, soft line breaks)", "first line\nsecond line",
			"<p>first line\nsecond line</p>\n"},
		{"a blank line starts a new paragraph", "one\n\ntwo", "<p>one</p>\n<p>two</p>\n"},
		{"real emphasis still works", "*really* **bold**", "<p><em>really</em> <strong>bold</strong></p>\n"},
		{"a GFM table (extension 4.10)", "| a | b |\n|---|--:|\n| 1 | 2 |",
			"<table>\n<thead>\n<tr>\n<th>a</th>\n<th align=\"right\">b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n<td align=\"right\">2</td>\n</tr>\n</tbody>\n</table>\n"},
		{"a blockquote (5.1)", "> careful\n> here", "<blockquote>\n<p>careful\nhere</p>\n</blockquote>\n"},
		{"nested lists (5.2, 5.3)", "- a\n  - b\n  - c\n- d",
			"<ul>\n<li>a\n<ul>\n<li>b</li>\n<li>c</li>\n</ul>\n</li>\n<li>d</li>\n</ul>\n"},
		{"an ordered list", "1. one\n2. two", "<ol>\n<li>one</li>\n<li>two</li>\n</ol>\n"},
		{"a code span keeps its asterisks (6.1)", "run `ls *.go` now", "<p>run <code>ls *.go</code> now</p>\n"},
		{"a fenced code block keeps its text", "```sh\necho *\n```",
			"<pre><code class=\"language-sh\">echo *\n</code></pre>\n"},
		{"a link whose address ends in (b): balanced parentheses (6.3)", "[x](https://example.com/a_(b))",
			`<p><a href="https://example.com/a_(b)" rel="nofollow noreferrer noopener" target="_blank">x</a></p>` + "\n"},
		{"a bare address is linked with its balanced parentheses (GFM autolinks 6.9)", "see https://example.com/wiki/Foo_(bar) now",
			`<p>see <a href="https://example.com/wiki/Foo_(bar)" rel="nofollow noreferrer noopener" target="_blank">https://example.com/wiki/Foo_(bar)</a> now</p>` + "\n"},
		{"strikethrough (GFM 6.5)", "~~old~~ new", "<p><del>old</del> new</p>\n"},
		{"a task list (GFM 5.3)", "- [x] done\n- [ ] todo",
			"<ul>\n<li><input checked=\"\" disabled=\"\" type=\"checkbox\"> done</li>\n<li><input disabled=\"\" type=\"checkbox\"> todo</li>\n</ul>\n"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			if got := r.RenderHTML(row.src); got != row.want {
				t.Errorf("RenderHTML(%q)\n got %q\nwant %q", row.src, got, row.want)
			}
		})
	}
}

// TestMarkupIsRefused: markup in a playbook (an agent or a bundle may have written it) never
// comes out as anything that runs, loads or restyles: each row's refused text is absent.
func TestMarkupIsRefused(t *testing.T) {
	r := New()
	rows := []struct {
		name, src string
		refused   []string
	}{
		{"a script element", "<script>alert(1)</script>", []string{"<script", "alert(1)"}},
		{"a script inside a paragraph", "hello <script>alert(1)</script> world", []string{"<script"}},
		{"an image with onerror", `<img src=x onerror="alert(1)">`, []string{"onerror", "<img src=x"}},
		{"a markdown image whose address is javascript:", "![a](javascript:alert(1))", []string{"javascript:"}},
		{"a javascript: link", "[click](javascript:alert(1))", []string{"javascript:"}},
		{"an encoded javascript: link", "[click](jav&#x61;script:alert(1))", []string{"script:alert"}},
		{"a data: link", "[click](data:text/html,<script>alert(1)</script>)", []string{"data:text/html", "<script"}},
		{"a vbscript: link", "[click](vbscript:msgbox(1))", []string{"vbscript:"}},
		{"an iframe", `<iframe src="https://evil.example"></iframe>`, []string{"<iframe"}},
		{"an inline style", `<p style="position:fixed">x</p>`, []string{"style="}},
		{"an event handler on a link", `<a href="https://x.example" onclick="alert(1)">x</a>`, []string{"onclick"}},
		{"a form", `<form action="https://evil.example"><input name=a></form>`, []string{"<form", "<input name"}},
		{"an svg with onload", `<svg onload="alert(1)"></svg>`, []string{"<svg", "onload"}},
		{"a meta refresh", `<meta http-equiv="refresh" content="0;url=https://evil.example">`, []string{"<meta", "refresh"}},
		{"a heading that closes the container", "# </div><script>alert(1)</script>", []string{"<script"}},
		{"an autolink to javascript: stays text", "<javascript:alert(1)>", []string{"href", "<a"}},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			got := r.RenderHTML(row.src)
			for _, bad := range row.refused {
				if strings.Contains(strings.ToLower(got), strings.ToLower(bad)) {
					t.Errorf("RenderHTML(%q) = %q: contains %q", row.src, got, bad)
				}
			}
		})
	}
}
