package harness

import (
	"fmt"
	"strings"
)

// The markers around Agent Deck's text in an instruction file; everything outside them belongs
// to the user and is never touched.
const (
	MarkerStart = "<!-- agent-deck:start -->"
	MarkerEnd   = "<!-- agent-deck:end -->"
)

// findBlock returns the byte range of the marker block, from=-1 when absent.
func findBlock(s string) (from, to int, err error) {
	from = strings.Index(s, MarkerStart)
	end := strings.Index(s, MarkerEnd)
	switch {
	case from < 0 && end < 0:
		return -1, 0, nil
	case from < 0 || end < from:
		return 0, 0, fmt.Errorf("the %s / %s markers are unbalanced; fix them by hand", MarkerStart, MarkerEnd)
	}
	if strings.Count(s, MarkerStart) > 1 || strings.Count(s, MarkerEnd) > 1 {
		return 0, 0, fmt.Errorf("the agent-deck markers appear more than once; keep one pair")
	}
	return from, end + len(MarkerEnd), nil
}

func block(text string) string {
	return MarkerStart + "\n" + strings.TrimRight(text, "\n") + "\n" + MarkerEnd
}

// SetBlock puts text between the markers: in place when the block exists, otherwise appended
// after a blank line. header starts a file that does not exist yet (front matter of a Cursor
// rule file); it is "" for plain markdown.
func SetBlock(src []byte, header, text string) ([]byte, error) {
	s := string(src)
	from, to, err := findBlock(s)
	if err != nil {
		return nil, err
	}
	if from >= 0 {
		return []byte(s[:from] + block(text) + s[to:]), nil
	}
	if s == "" {
		if header == "" {
			return []byte(block(text) + "\n"), nil
		}
		s = header
	}
	sep := "\n"
	if !strings.HasSuffix(s, "\n") {
		sep = "\n\n"
	}
	return []byte(s + sep + block(text) + "\n"), nil
}

// RemoveBlock takes the marker block out again with the newlines SetBlock added. A file left
// holding only header (or nothing) becomes empty, so the caller deletes it.
func RemoveBlock(src []byte, header string) ([]byte, error) {
	s := string(src)
	from, to, err := findBlock(s)
	if err != nil || from < 0 {
		return src, err
	}
	before, after := s[:from], s[to:]
	after = strings.TrimPrefix(after, "\n")
	if after == "" && strings.HasSuffix(before, "\n\n") {
		before = before[:len(before)-1]
	}
	out := before + after
	if out == header || strings.TrimSpace(out) == "" {
		return nil, nil
	}
	return []byte(out), nil
}
