package harness

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// TOMLTable is a table Agent Deck owns in a TOML file: its header path and its key/value lines,
// in order. Values are strings or inline tables (Object with string values).
type TOMLTable struct {
	Path []string
	Keys Object
}

func (t TOMLTable) render() string {
	var b strings.Builder
	b.WriteString("[" + tomlPath(t.Path) + "]\n")
	for _, kv := range t.Keys {
		b.WriteString(tomlKey(kv.Key) + " = " + tomlValue(kv.Value) + "\n")
	}
	return b.String()
}

func tomlPath(path []string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = tomlKey(p)
	}
	return strings.Join(parts, ".")
}

func tomlKey(k string) string {
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return string(jsonString(k))
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

// tomlValue renders strings as basic strings (JSON string escapes are valid TOML) and Objects
// as inline tables.
func tomlValue(v any) string {
	switch x := v.(type) {
	case Object:
		parts := make([]string, len(x))
		for i, kv := range x {
			parts[i] = string(jsonString(kv.Key)) + " = " + tomlValue(kv.Value)
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	case []string:
		parts := make([]string, len(x))
		for i, s := range x {
			parts[i] = string(jsonString(s))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	default:
		return string(jsonString(fmt.Sprint(x)))
	}
}

// tomlHeader is one [table] or [[array]] header of a document: its path and the offset of the
// line it is on.
type tomlHeader struct {
	path []string
	line int
}

// tomlHeaders lists the document's table headers, found by TOML's own parser so that nothing
// inside a string (a '"""' in a literal, a "[table]" line in a multi-line string) is taken for
// one.
func tomlHeaders(src []byte) ([]tomlHeader, error) {
	var p unstable.Parser
	p.Reset(src)
	var out []tomlHeader
	for p.NextExpression() {
		e := p.Expression()
		if e.Kind != unstable.Table && e.Kind != unstable.ArrayTable {
			continue
		}
		h := tomlHeader{line: -1}
		for it := e.Children(); it.Next(); {
			k := it.Node()
			if h.line < 0 {
				h.line = bytes.LastIndexByte(src[:k.Raw.Offset], '\n') + 1
			}
			h.path = append(h.path, string(k.Data))
		}
		out = append(out, h)
	}
	if err := p.Error(); err != nil {
		return nil, fmt.Errorf("invalid TOML: %w", err)
	}
	return out, nil
}

func hasPrefixPath(p, prefix []string) bool {
	return len(p) >= len(prefix) && slices.Equal(p[:len(prefix)], prefix)
}

// findTable returns the byte range [from, to) of the table at path and its sub-tables, without
// the blank and comment lines that trail it (they introduce what follows); from=-1 when absent.
func findTable(src []byte, headers []tomlHeader, path []string) (from, to int) {
	from, to = -1, len(src)
	for _, h := range headers {
		if from < 0 {
			if slices.Equal(h.path, path) {
				from = h.line
			}
			continue
		}
		if !hasPrefixPath(h.path, path) {
			to = h.line
			break
		}
	}
	if from < 0 {
		return -1, 0
	}
	for to > from {
		end := to
		if src[end-1] == '\n' {
			end--
		}
		start := bytes.LastIndexByte(src[:end], '\n') + 1
		if start <= from {
			break // the header line itself stays
		}
		if l := bytes.TrimSpace(src[start:end]); len(l) > 0 && l[0] != '#' {
			break
		}
		to = start
	}
	return from, to
}

// SetTOMLTable writes table t into a TOML document: replaced in place when present, appended
// after a blank line otherwise. Nothing outside the table changes.
func SetTOMLTable(src []byte, t TOMLTable) ([]byte, error) {
	if err := checkTOML(src); err != nil {
		return nil, err
	}
	headers, err := tomlHeaders(src)
	if err != nil {
		return nil, err
	}
	from, to := findTable(src, headers, t.Path)
	var out string
	switch {
	case from >= 0:
		out = string(src[:from]) + t.render() + string(src[to:])
	case len(strings.TrimSpace(string(src))) == 0:
		out = t.render()
	default:
		s := string(src)
		if !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		out = s + "\n" + t.render()
	}
	if err := verifyTOMLTable([]byte(out), t); err != nil {
		return nil, err
	}
	return []byte(out), nil
}

// DeleteTOMLTable removes the table at path (and the blank line before it that SetTOMLTable
// added), leaving every other line as it was.
func DeleteTOMLTable(src []byte, path []string) ([]byte, error) {
	if err := checkTOML(src); err != nil {
		return nil, err
	}
	headers, err := tomlHeaders(src)
	if err != nil {
		return nil, err
	}
	from, to := findTable(src, headers, path)
	if from < 0 {
		return src, nil
	}
	if from > 0 { // the blank line SetTOMLTable put before the table
		prev := bytes.LastIndexByte(src[:from-1], '\n') + 1
		if len(bytes.TrimSpace(src[prev:from])) == 0 {
			from = prev
		}
	}
	out := string(src[:from]) + string(src[to:])
	if strings.TrimSpace(out) == "" {
		return nil, nil
	}
	return []byte(out), nil
}

func checkTOML(src []byte) error {
	var m map[string]any
	if err := toml.Unmarshal(src, &m); err != nil {
		return fmt.Errorf("invalid TOML: %w", err)
	}
	return nil
}

// verifyTOMLTable proves the edit produced valid TOML whose table equals t, which fails when the
// file already defines that table another way (dotted keys, inline table).
func verifyTOMLTable(src []byte, t TOMLTable) error {
	var m map[string]any
	if err := toml.Unmarshal(src, &m); err != nil {
		return fmt.Errorf("the %s table is defined in a form Agent Deck cannot edit; remove it by hand: %w",
			tomlPath(t.Path), err)
	}
	var got any = m
	for _, p := range t.Path {
		mm, ok := got.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is not a table", tomlPath(t.Path))
		}
		got = mm[p]
	}
	var want map[string]any
	if err := toml.Unmarshal([]byte(t.render()), &want); err != nil {
		return err
	}
	for _, p := range t.Path {
		want, _ = want[p].(map[string]any)
	}
	if !reflect.DeepEqual(got, any(want)) {
		return fmt.Errorf("the %s table has keys Agent Deck does not write; remove it by hand and run again",
			tomlPath(t.Path))
	}
	return nil
}
