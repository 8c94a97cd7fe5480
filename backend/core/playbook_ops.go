package core

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

const maxPlaybookOps = 50

// PlaybookContent is what ops change.
type PlaybookContent struct {
	Body     string   `json:"body"`
	Triggers []string `json:"triggers"`
}

var listItemRE = regexp.MustCompile(`^(\s*)([-*+]|\d+[.)])\s+(.*)$`)

// ApplyPlaybookOps applies ops in order to a copy of cur, all or nothing. The body is a
// preamble plus sections (headings of any level) matched case-insensitively. An op that cannot apply is a
// PATCH_CONFLICT naming the section or anchor and the lines that exist; ops that change
// nothing are PATCH_NO_CHANGE.
func ApplyPlaybookOps(cur PlaybookContent, ops []backend.PlaybookOp) (PlaybookContent, error) {
	if len(ops) == 0 {
		return cur, backend.Invalid("ops", "must hold at least one op (%s)", strings.Join(backend.PlaybookOpNames, ", "))
	}
	if len(ops) > maxPlaybookOps {
		return cur, backend.Invalid("ops", "at most %d ops, got %d", maxPlaybookOps, len(ops))
	}
	lines := strings.Split(cur.Body, "\n")
	next := PlaybookContent{Triggers: slices.Clone(cur.Triggers)}
	for i, op := range ops {
		var err error
		lines, next.Triggers, err = applyOp(i, op, lines, next.Triggers)
		if err != nil {
			return cur, err
		}
	}
	next.Body = strings.Join(lines, "\n")
	body, err := backend.CleanText("body", next.Body, backend.MaxBodyBytes, true)
	if err != nil {
		return cur, err
	}
	next.Body = body
	if next.Body == cur.Body && slices.Equal(next.Triggers, cur.Triggers) {
		return cur, backend.Errorf(backend.CodePatchNoChange, "the ops leave the playbook exactly as it is").
			WithHint("check the section and item text against the playbook as it is now, or send nothing")
	}
	return next, nil
}

func applyOp(i int, op backend.PlaybookOp, lines, triggers []string) ([]string, []string, error) {
	field := func(name string) string { return fmt.Sprintf("ops[%d].%s", i, name) }
	switch op.Op {
	case backend.OpSetTriggers:
		t, err := CleanTriggers(op.Triggers)
		if err == nil && len(t) == 0 {
			err = backend.Invalid(field("triggers"), "must hold at least one trigger")
		}
		return lines, t, err
	case backend.OpRewriteBody:
		if strings.TrimSpace(op.Text) == "" {
			return nil, nil, backend.Invalid(field("text"), "must be the whole new body, not empty")
		}
		return strings.Split(op.Text, "\n"), triggers, nil
	case backend.OpAddItem, backend.OpAmendItem, backend.OpRemoveItem:
	default:
		return nil, nil, backend.InvalidEnum(field("op"), op.Op, backend.PlaybookOpNames)
	}
	section := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(op.Section), "#"))
	if section == "" {
		return nil, nil, backend.Invalid(field("section"), "must name a section (a heading) of the body")
	}
	text := itemText(op.Text)
	if op.Op != backend.OpRemoveItem && text == "" {
		return nil, nil, backend.Invalid(field("text"), "must be the item's text")
	}
	if strings.Contains(text, "\n") {
		return nil, nil, backend.Invalid(field("text"), "must be one line (one list item)")
	}
	start, end, found := findSection(lines, section)
	if op.Op == backend.OpAddItem {
		if !found {
			return appendSection(lines, section, text), triggers, nil
		}
		return insertItem(lines, start, end, text), triggers, nil
	}
	if !found {
		return nil, nil, backend.Errorf(backend.CodePatchConflict, "ops[%d]: the body has no section %q; its sections: %s",
			i, section, backend.KnownList(sectionNames(lines))).
			WithDetail("op", i).WithDetail("section", section).WithDetail("existing", sectionNames(lines)).
			WithHint("name an existing section, or use add_item to create one")
	}
	anchor := itemText(op.Anchor)
	if anchor == "" {
		return nil, nil, backend.Invalid(field("anchor"), "must be the text of the list item to change")
	}
	at := findItem(lines, start, end, anchor)
	if at < 0 {
		items := sectionItems(lines, start, end)
		return nil, nil, backend.Errorf(backend.CodePatchConflict, "ops[%d]: section %q has no item %q; its items: %s",
			i, section, anchor, backend.KnownList(items)).
			WithDetail("op", i).WithDetail("section", section).WithDetail("anchor", anchor).
			WithDetail("existing", items).
			WithHint("copy the anchor from one of the existing items")
	}
	if op.Op == backend.OpRemoveItem {
		return slices.Delete(slices.Clone(lines), at, at+1), triggers, nil
	}
	m := listItemRE.FindStringSubmatch(lines[at])
	out := slices.Clone(lines)
	out[at] = m[1] + m[2] + " " + text
	return out, triggers, nil
}

// itemText is a list item's text without its marker and surrounding space.
func itemText(s string) string {
	s = strings.TrimSpace(s)
	if m := listItemRE.FindStringSubmatch(s); m != nil {
		return strings.TrimSpace(m[3])
	}
	return s
}

// headings returns the index of every ATX heading line ("# " to "###### ") outside fenced
// code. A section is a heading of any level: a playbook titled "# Rotate" has a section Rotate.
func headings(lines []string) []int {
	var out []int
	fenced := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			continue
		}
		if !fenced && headingLevel(l) > 0 {
			out = append(out, i)
		}
	}
	return out
}

// headingLevel is the level of an ATX heading line (1 for "# x", 2 for "## x"); 0 for any other
// line. Up to three spaces may indent it, as in CommonMark.
func headingLevel(l string) int {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 {
		return 0
	}
	n := len(t) - len(strings.TrimLeft(t, "#"))
	if n < 1 || n > 6 || (len(t) > n && t[n] != ' ' && t[n] != '\t') {
		return 0
	}
	return n
}

// headingName is a heading's text, without its marker and any closing #s.
func headingName(l string) string {
	t := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#"))
	if trimmed := strings.TrimRight(t, "#"); trimmed != t && (trimmed == "" || strings.HasSuffix(trimmed, " ")) {
		t = strings.TrimSpace(trimmed)
	}
	return t
}

func sectionNames(lines []string) []string {
	out := []string{}
	for _, h := range headings(lines) {
		out = append(out, headingName(lines[h]))
	}
	return out
}

// findSection returns the heading index and the end (exclusive) of the named section: up to the
// next heading of the same or a higher level, so its subsections are part of it.
func findSection(lines []string, name string) (start, end int, ok bool) {
	hs := headings(lines)
	for k, h := range hs {
		if !strings.EqualFold(headingName(lines[h]), name) {
			continue
		}
		level, end := headingLevel(lines[h]), len(lines)
		for _, next := range hs[k+1:] {
			if headingLevel(lines[next]) <= level {
				end = next
				break
			}
		}
		return h, end, true
	}
	return 0, 0, false
}

func findItem(lines []string, start, end int, anchor string) int {
	for i := start + 1; i < end; i++ {
		if m := listItemRE.FindStringSubmatch(lines[i]); m != nil && strings.TrimSpace(m[3]) == anchor {
			return i
		}
	}
	return -1
}

func sectionItems(lines []string, start, end int) []string {
	out := []string{}
	for i := start + 1; i < end; i++ {
		if m := listItemRE.FindStringSubmatch(lines[i]); m != nil {
			out = append(out, strings.TrimSpace(m[3]))
		}
	}
	return out
}

// insertItem puts "- text" after the section's last list item, or after its last line of
// text when it has no list yet.
func insertItem(lines []string, start, end int, text string) []string {
	last, lastText := -1, start
	for i := start + 1; i < end; i++ {
		if listItemRE.MatchString(lines[i]) {
			last = i
		}
		if strings.TrimSpace(lines[i]) != "" {
			lastText = i
		}
	}
	add, at := []string{"", "- " + text}, lastText+1
	if last >= 0 {
		add, at = []string{nextMarker(lines[last]) + " " + text}, last+1
	}
	return slices.Insert(slices.Clone(lines), at, add...)
}

// nextMarker continues a list the way it is written: same indent and bullet, or the next
// number.
func nextMarker(item string) string {
	m := listItemRE.FindStringSubmatch(item)
	marker := m[2]
	if n := len(marker); marker[n-1] == '.' || marker[n-1] == ')' {
		k, _ := strconv.Atoi(marker[:n-1]) // digits only, by listItemRE
		marker = fmt.Sprintf("%d%c", k+1, marker[n-1])
	}
	return m[1] + marker
}

// appendSection adds "## section" with one item at the end of the body.
func appendSection(lines []string, section, text string) []string {
	out := slices.Clone(lines)
	trailing := len(out) > 0 && out[len(out)-1] == ""
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
		out = out[:len(out)-1]
	}
	if len(out) > 0 {
		out = append(out, "")
	}
	out = append(out, "## "+section, "", "- "+text)
	if trailing {
		out = append(out, "")
	}
	return out
}
