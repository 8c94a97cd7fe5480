package harness

import (
	"encoding/json"
	"fmt"
	"strings"
)

// jval is one JSON(C) value with its byte span in the source, so an edit touches only the bytes
// it must and everything else (order, spacing, comments) survives byte for byte.
type jval struct {
	kind    byte // '{' object, '[' array, '"' string, 'l' literal or number
	start   int
	end     int // exclusive
	members []jmember
}

// jmember is one key/value pair of an object; comma is the offset of the comma that follows the
// value, -1 when there is none.
type jmember struct {
	key      string
	keyStart int
	val      *jval
	comma    int
}

type jparser struct {
	src []byte
	pos int
}

// parseJSONC parses a JSON document that may carry // and /* */ comments and trailing commas
// (VS Code settings, Zed-style files). A leading UTF-8 byte order mark is skipped.
func parseJSONC(src []byte) (*jval, error) {
	p := &jparser{src: src}
	if strings.HasPrefix(string(src), "\uFEFF") {
		p.pos = 3
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos != len(src) {
		return nil, p.errorf("unexpected %q after the top-level value", src[p.pos])
	}
	return v, nil
}

func (p *jparser) errorf(format string, args ...any) error {
	line := 1 + strings.Count(string(p.src[:min(p.pos, len(p.src))]), "\n")
	return fmt.Errorf("invalid JSON at line %d: %s", line, fmt.Sprintf(format, args...))
}

// skip passes over whitespace and comments.
func (p *jparser) skip() error {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '*':
			end := strings.Index(string(p.src[p.pos+2:]), "*/")
			if end < 0 {
				return p.errorf("unterminated /* comment")
			}
			p.pos += 2 + end + 2
		default:
			return nil
		}
	}
	return nil
}

const maxDepth = 200

func (p *jparser) value(depth int) (*jval, error) {
	if depth > maxDepth {
		return nil, p.errorf("nested too deeply")
	}
	if p.pos >= len(p.src) {
		return nil, p.errorf("unexpected end of input")
	}
	switch p.src[p.pos] {
	case '{':
		return p.object(depth)
	case '[':
		return p.array(depth)
	case '"':
		start := p.pos
		if _, err := p.str(); err != nil {
			return nil, err
		}
		return &jval{kind: '"', start: start, end: p.pos}, nil
	default:
		return p.literal()
	}
}

func (p *jparser) literal() (*jval, error) {
	start := p.pos
	for p.pos < len(p.src) && !strings.ContainsRune(",:}] \t\r\n/[{\"", rune(p.src[p.pos])) {
		p.pos++
	}
	lit := string(p.src[start:p.pos])
	if lit == "" || !json.Valid([]byte(lit)) {
		p.pos = start
		return nil, p.errorf("unexpected %q", clipBytes(p.src[start:], 20))
	}
	return &jval{kind: 'l', start: start, end: p.pos}, nil
}

// str reads a string token and returns its decoded value.
func (p *jparser) str() (string, error) {
	start := p.pos
	p.pos++
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '\\':
			p.pos += 2
			continue
		case '"':
			p.pos++
			var s string
			if err := json.Unmarshal(p.src[start:p.pos], &s); err != nil {
				p.pos = start
				return "", p.errorf("bad string")
			}
			return s, nil
		case '\n':
			p.pos = start
			return "", p.errorf("newline inside a string")
		}
		p.pos++
	}
	p.pos = start
	return "", p.errorf("unterminated string")
}

func (p *jparser) object(depth int) (*jval, error) {
	v := &jval{kind: '{', start: p.pos}
	p.pos++
	for {
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == '}' {
			p.pos++
			v.end = p.pos
			return v, nil
		}
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return nil, p.errorf("expected a key or '}'")
		}
		m := jmember{keyStart: p.pos, comma: -1}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		m.key = key
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.errorf("expected ':' after key %q", key)
		}
		p.pos++
		if err := p.skip(); err != nil {
			return nil, err
		}
		if m.val, err = p.value(depth + 1); err != nil {
			return nil, err
		}
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			m.comma = p.pos
			p.pos++
			v.members = append(v.members, m)
			continue
		}
		v.members = append(v.members, m)
		if p.pos >= len(p.src) || p.src[p.pos] != '}' {
			return nil, p.errorf("expected ',' or '}' after the value of %q", key)
		}
	}
}

func (p *jparser) array(depth int) (*jval, error) {
	v := &jval{kind: '[', start: p.pos}
	p.pos++
	for {
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ']' {
			p.pos++
			v.end = p.pos
			return v, nil
		}
		if _, err := p.value(depth + 1); err != nil {
			return nil, err
		}
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ']' {
			return nil, p.errorf("expected ',' or ']' in an array")
		}
	}
}

// member returns the index of key in an object, -1 when absent.
func (v *jval) member(key string) int {
	for i, m := range v.members {
		if m.key == key {
			return i
		}
	}
	return -1
}

func clipBytes(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}
