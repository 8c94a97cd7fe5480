package harness

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/pelletier/go-toml/v2"
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

// tomlLine is one line of a TOML file with its line ending.
type tomlLine struct {
	text   string
	header []string // table path when the line is a [table] or [[array]] header
}

func splitTOML(src string) []tomlLine {
	var lines []tomlLine
	inMulti := ""
	for len(src) > 0 {
		i := strings.IndexByte(src, '\n')
		var l string
		if i < 0 {
			l, src = src, ""
		} else {
			l, src = src[:i+1], src[i+1:]
		}
		tl := tomlLine{text: l}
		trimmed := strings.TrimSpace(l)
		if inMulti == "" && strings.HasPrefix(trimmed, "[") {
			tl.header = parseHeader(trimmed)
		}
		for _, q := range []string{`"""`, `'''`} {
			if n := strings.Count(l, q); n%2 == 1 && (inMulti == "" || inMulti == q) {
				if inMulti == "" {
					inMulti = q
				} else {
					inMulti = ""
				}
			}
		}
		lines = append(lines, tl)
	}
	return lines
}

// parseHeader turns `[a."b c".d]  # note` into [a b c d]; nil when it is not a header.
func parseHeader(line string) []string {
	line = strings.TrimPrefix(strings.TrimPrefix(line, "["), "[")
	var parts []string
	var cur strings.Builder
	quote := byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			quote = c
		case c == '.':
			parts = append(parts, strings.TrimSpace(cur.String()))
			cur.Reset()
		case c == ']':
			return append(parts, strings.TrimSpace(cur.String()))
		default:
			cur.WriteByte(c)
		}
	}
	return nil
}

func hasPrefixPath(p, prefix []string) bool {
	return len(p) >= len(prefix) && reflect.DeepEqual(p[:len(prefix)], prefix)
}

// findTable returns the line range [from, to) of the table at path and its sub-tables, without
// the blank lines that trail it; from=-1 when absent.
func findTable(lines []tomlLine, path []string) (from, to int) {
	from = -1
	for i, l := range lines {
		if l.header == nil {
			continue
		}
		if from < 0 && reflect.DeepEqual(l.header, path) {
			from = i
			continue
		}
		if from >= 0 && !hasPrefixPath(l.header, path) {
			to = i
			break
		}
	}
	if from < 0 {
		return -1, 0
	}
	if to == 0 {
		to = len(lines)
	}
	for to > from+1 && strings.TrimSpace(lines[to-1].text) == "" {
		to--
	}
	return from, to
}

func joinLines(lines []tomlLine) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.text)
	}
	return b.String()
}

// SetTOMLTable writes table t into a TOML document: replaced in place when present, appended
// after a blank line otherwise. Nothing outside the table changes.
func SetTOMLTable(src []byte, t TOMLTable) ([]byte, error) {
	if err := checkTOML(src); err != nil {
		return nil, err
	}
	lines := splitTOML(string(src))
	from, to := findTable(lines, t.Path)
	var out string
	switch {
	case from >= 0:
		out = joinLines(lines[:from]) + t.render() + joinLines(lines[to:])
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
	lines := splitTOML(string(src))
	from, to := findTable(lines, path)
	if from < 0 {
		return src, nil
	}
	if from > 0 && strings.TrimSpace(lines[from-1].text) == "" {
		from--
	}
	out := joinLines(lines[:from]) + joinLines(lines[to:])
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
