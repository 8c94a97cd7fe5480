package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// KV is one member of an Object.
type KV struct {
	Key   string
	Value any
}

// Object is a JSON object whose members keep the order they are written in, so the entries
// Agent Deck writes look the same in every file and every run.
type Object []KV

// MarshalJSON renders the members in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonString(kv.Key))
		b.WriteByte(':')
		v, err := marshalNoEscape(kv.Value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func jsonString(s string) []byte {
	b, _ := marshalNoEscape(s)
	return b
}

// render pretty-prints v; nested lines start with indent and step by unit.
func render(v any, indent, unit string) string {
	raw, err := marshalNoEscape(v)
	if err != nil {
		return "null"
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, indent, unit); err != nil {
		return string(raw)
	}
	return out.String()
}

// jsonDoc edits one JSON(C) document in place.
type jsonDoc struct {
	src  []byte
	unit string
}

func newJSONDoc(src []byte) (*jsonDoc, *jval, error) {
	root, err := parseJSONC(src)
	if err != nil {
		return nil, nil, err
	}
	if root.kind != '{' {
		return nil, nil, fmt.Errorf("the top-level JSON value is not an object")
	}
	return &jsonDoc{src: src, unit: indentUnit(src, root)}, root, nil
}

// indentUnit guesses the file's indentation from the first member of the root object.
func indentUnit(src []byte, root *jval) string {
	if len(root.members) > 0 {
		if ind, ok := lineIndent(src, root.members[0].keyStart); ok && ind != "" {
			return ind
		}
	}
	return "  "
}

// lineIndent returns the whitespace before pos on its line, ok=false when something other than
// whitespace precedes pos on that line.
func lineIndent(src []byte, pos int) (string, bool) {
	i := pos
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t') {
		i--
	}
	if i > 0 && src[i-1] != '\n' {
		return "", false
	}
	return string(src[i:pos]), true
}

// lineStart returns the offset of the newline before pos's line (or pos's line start when the
// file begins there), so deleting [lineStart, …) takes the whole line with it.
func lineStartWithNewline(src []byte, pos int) int {
	i := pos
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t') {
		i--
	}
	if i > 0 && src[i-1] == '\n' {
		i--
		if i > 0 && src[i-1] == '\r' {
			i--
		}
	}
	return i
}

func splice(src []byte, start, end int, text string) []byte {
	out := make([]byte, 0, len(src)-(end-start)+len(text))
	out = append(out, src[:start]...)
	out = append(out, text...)
	return append(out, src[end:]...)
}

// objectIndent is the indentation of members of obj: that of its first member when it sits on
// its own line, else the parent's plus one unit.
func (d *jsonDoc) objectIndent(obj *jval, parentIndent string) string {
	if len(obj.members) > 0 {
		if ind, ok := lineIndent(d.src, obj.members[0].keyStart); ok {
			return ind
		}
	}
	return parentIndent + d.unit
}

// insert adds "key": value as the last member of obj.
func (d *jsonDoc) insert(obj *jval, parentIndent, key string, value any) []byte {
	ind := d.objectIndent(obj, parentIndent)
	text := string(jsonString(key)) + ": " + render(value, ind, d.unit)
	if len(obj.members) == 0 {
		inner := d.src[obj.start+1 : obj.end-1]
		if len(bytes.TrimSpace(inner)) == 0 {
			return splice(d.src, obj.start+1, obj.end-1, "\n"+ind+text+"\n"+parentIndent)
		}
		return splice(d.src, obj.start+1, obj.start+1, "\n"+ind+text+",")
	}
	closeAt := obj.end - 1
	for closeAt > obj.start+1 && strings.IndexByte(" \t\r\n", d.src[closeAt-1]) >= 0 {
		closeAt--
	}
	last := obj.members[len(obj.members)-1]
	if last.comma >= 0 {
		return splice(d.src, closeAt, closeAt, "\n"+ind+text+",")
	}
	out := splice(d.src, closeAt, closeAt, "\n"+ind+text)
	return splice(out, last.val.end, last.val.end, ",")
}

// replace sets the value of member i of obj.
func (d *jsonDoc) replace(obj *jval, parentIndent string, i int, value any) []byte {
	m := obj.members[i]
	ind, ok := lineIndent(d.src, m.keyStart)
	if !ok {
		ind = d.objectIndent(obj, parentIndent)
	}
	return splice(d.src, m.val.start, m.val.end, render(value, ind, d.unit))
}

// remove deletes member i of obj with its line and the comma that belonged to it, the exact
// inverse of insert.
func (d *jsonDoc) remove(obj *jval, i int) []byte {
	m := obj.members[i]
	if len(obj.members) == 1 && !hasComment(d.src[obj.start+1:obj.end-1]) {
		return splice(d.src, obj.start+1, obj.end-1, "")
	}
	start := lineStartWithNewline(d.src, m.keyStart)
	if m.comma >= 0 {
		return splice(d.src, start, m.comma+1, "")
	}
	out := splice(d.src, start, m.val.end, "")
	if i > 0 && obj.members[i-1].comma >= 0 {
		c := obj.members[i-1].comma
		out = splice(out, c, c+1, "")
	}
	return out
}

func hasComment(b []byte) bool {
	p := &jparser{src: b}
	for p.pos < len(b) {
		if b[p.pos] == '/' {
			return true
		}
		if b[p.pos] == '"' {
			if _, err := p.str(); err != nil {
				return false
			}
			continue
		}
		p.pos++
	}
	return false
}

// descend walks path from root, returning the object at its end and its members' parent
// indent; missing is the first path index not present.
func (d *jsonDoc) descend(root *jval, path []string) (obj *jval, indent string, missing int, err error) {
	obj, indent = root, ""
	for i, key := range path {
		j := obj.member(key)
		if j < 0 {
			return obj, indent, i, nil
		}
		child := obj.members[j].val
		if child.kind != '{' {
			return nil, "", 0, fmt.Errorf("%q is not a JSON object", strings.Join(path[:i+1], "."))
		}
		indent = d.objectIndent(obj, indent)
		obj = child
	}
	return obj, indent, len(path), nil
}

// SetJSON sets path.name to value in a JSON(C) document, creating the objects on the path,
// leaving every other byte as it was. Empty input gets a new document.
func SetJSON(src []byte, path []string, name string, value any) ([]byte, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		var v any = value
		v = Object{{name, v}}
		for i := len(path) - 1; i >= 0; i-- {
			v = Object{{path[i], v}}
		}
		return []byte(render(v, "", "  ") + "\n"), nil
	}
	d, root, err := newJSONDoc(src)
	if err != nil {
		return nil, err
	}
	obj, indent, missing, err := d.descend(root, path)
	if err != nil {
		return nil, err
	}
	if missing < len(path) {
		var v any = Object{{name, value}}
		for i := len(path) - 1; i > missing; i-- {
			v = Object{{path[i], v}}
		}
		return d.insert(obj, indent, path[missing], v), nil
	}
	if i := obj.member(name); i >= 0 {
		return d.replace(obj, indent, i, value), nil
	}
	return d.insert(obj, indent, name, value), nil
}

// DeleteJSON removes path.name and then every object on path it leaves empty. A document left
// as an empty object becomes empty input again, so add-then-remove of a new file deletes it.
func DeleteJSON(src []byte, path []string, name string) ([]byte, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return src, nil
	}
	keys := append(append([]string{}, path...), name)
	for n := len(keys); n > 0; n-- {
		d, root, err := newJSONDoc(src)
		if err != nil {
			return nil, err
		}
		obj, _, missing, err := d.descend(root, keys[:n-1])
		if err != nil || missing < n-1 {
			return src, err
		}
		i := obj.member(keys[n-1])
		if i < 0 {
			return src, nil
		}
		if n < len(keys) {
			child := obj.members[i].val
			if len(child.members) > 0 || hasComment(d.src[child.start+1:child.end-1]) {
				break
			}
		}
		src = d.remove(obj, i)
	}
	if t := bytes.TrimSpace(src); string(t) == "{}" {
		return nil, nil
	}
	return src, nil
}

// GetJSON returns the raw value at path, ok=false when absent.
func GetJSON(src []byte, path ...string) (json.RawMessage, bool, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, false, nil
	}
	d, root, err := newJSONDoc(src)
	if err != nil {
		return nil, false, err
	}
	obj, _, missing, err := d.descend(root, path[:len(path)-1])
	if err != nil || missing < len(path)-1 {
		return nil, false, err
	}
	i := obj.member(path[len(path)-1])
	if i < 0 {
		return nil, false, nil
	}
	v := obj.members[i].val
	return json.RawMessage(d.src[v.start:v.end]), true, nil
}
