package backend

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// CheckJSONText refuses JSON text that encoding/json would silently repair or resolve: bytes
// that are not UTF-8 and \u escapes of lone UTF-16 surrogates ("\ud800"), which the decoder turns
// into U+FFFD, and an object that names a key twice, of which the decoder keeps the last value
// while another reader (a downstream server, a person reading the audit) may take the first.
// Either way the value used is not the value sent. The INVALID_ARGUMENT error names the field at
// fault (details.field, a JSON path such as headers.X-Key or args[2]) when it lies inside one,
// and says what is wrong in details.problem.
func CheckJSONText(raw []byte) error {
	hint := "send text as UTF-8 and escape only whole characters (surrogates in pairs)"
	off, what := badJSONText(raw)
	if off < 0 {
		if off, _ = duplicateKey(raw); off < 0 {
			return nil
		}
		what, hint = "a key given twice", "name each key of a JSON object once"
	}
	field := jsonPathAt(raw, int64(off))
	if field == "" {
		return Errorf(CodeInvalidArgument, "the JSON text holds %s at byte %d", what, off).
			WithDetail("offset", off).WithDetail("problem", what).WithHint(hint)
	}
	if what == "a key given twice" {
		return Errorf(CodeInvalidArgument, "field %q is given twice", field).
			WithDetail("field", field).WithDetail("offset", off).WithDetail("problem", what).WithHint(hint)
	}
	return Errorf(CodeInvalidArgument, "field %q holds %s", field, what).
		WithDetail("field", field).WithDetail("offset", off).WithDetail("problem", what).WithHint(hint)
}

// duplicateKey returns the offset of the first object key that its object already named (as
// the decoder compares keys: after unescaping) and the key; -1 when every key is unique. Text
// that is not JSON is left to the decoder to report.
func duplicateKey(raw []byte) (int, string) {
	// It runs on every call's arguments: the open values and the keys of the open objects live
	// in arrays on the stack for the usual shallow, small text.
	var stackBuf [16]openValue
	var keysBuf [32][]byte
	stack, keys := stackBuf[:0], keysBuf[:0]
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '{':
			stack = append(stack, openValue{object: true, wantKey: true, start: len(keys)})
		case '[':
			stack = append(stack, openValue{})
		case '}', ']':
			if n := len(stack); n > 0 {
				if stack[n-1].object {
					keys = keys[:stack[n-1].start] // its keys are done with
				}
				stack = stack[:n-1]
			}
		case ',':
			if n := len(stack); n > 0 && stack[n-1].object {
				stack[n-1].wantKey = true
			}
		case '"':
			end, escaped := stringEnd(raw, i)
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
				o := &stack[n-1]
				o.wantKey = false
				key := raw[i+1 : max(end-1, i+1)]
				if escaped {
					var k string
					if json.Unmarshal(raw[i:end], &k) != nil {
						return -1, ""
					}
					key = []byte(k)
				}
				var seen bool
				if keys, seen = o.add(keys, key); seen {
					return i, string(key)
				}
			}
			i = end - 1
		}
	}
	return -1, ""
}

// openValue is an object or array not yet closed. The keys an object has named so far are
// keys[start:] of its scan (only the innermost open object adds keys, so they are the last
// ones), compared in place, or a set once the object is large.
type openValue struct {
	object  bool
	wantKey bool
	start   int
	set     map[string]bool
}

// add records key among keys (returned) and reports whether the object had named it already.
func (o *openValue) add(keys [][]byte, key []byte) ([][]byte, bool) {
	if o.set != nil {
		if o.set[string(key)] {
			return keys, true
		}
		o.set[string(key)] = true
		return keys, false
	}
	for _, k := range keys[o.start:] {
		if bytes.Equal(k, key) {
			return keys, true
		}
	}
	keys = append(keys, key)
	if own := keys[o.start:]; len(own) > 16 {
		o.set = make(map[string]bool, 2*len(own))
		for _, k := range own {
			o.set[string(k)] = true
		}
		keys = keys[:o.start]
	}
	return keys, false
}

// stringEnd returns the index just past the string starting at raw[i] == '"', and whether it
// holds an escape.
func stringEnd(raw []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return len(raw), escaped
}

// badJSONText returns the offset of the first byte that is not UTF-8 or of the first lone
// surrogate escape inside a string, and what it is; -1 when there is none.
func badJSONText(raw []byte) (int, string) {
	if utf8.Valid(raw) && !bytes.Contains(raw, []byte(`\u`)) && !bytes.Contains(raw, []byte(`\U`)) {
		return -1, ""
	}
	inString := false
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && n == 1 {
				return i, "bytes that are not valid UTF-8"
			}
			i += n
		case c == '"':
			inString = !inString
			i++
		case c == '\\' && inString:
			if i+1 < len(raw) && (raw[i+1] == 'u' || raw[i+1] == 'U') {
				n, ok := surrogateEscape(raw, i)
				if !ok {
					return i, "a lone UTF-16 surrogate escape (" + string(raw[i:min(i+6, len(raw))]) + ")"
				}
				i += n
				continue
			}
			i += 2
		default:
			i++
		}
	}
	return -1, ""
}

// surrogateEscape checks the \uXXXX escape at i: a high surrogate must be followed by a low
// one, a low one must not stand alone. It returns the escape's length (12 for a pair).
func surrogateEscape(raw []byte, i int) (int, bool) {
	u, ok := hex4(raw, i+2)
	switch {
	case !ok:
		return 2, true // not an escape encoding/json accepts; the syntax check reports it
	case u >= 0xDC00 && u <= 0xDFFF:
		return 0, false
	case u < 0xD800 || u > 0xDBFF:
		return 6, true
	}
	if i+7 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
		if lo, ok := hex4(raw, i+8); ok && lo >= 0xDC00 && lo <= 0xDFFF {
			return 12, true
		}
	}
	return 0, false
}

func hex4(raw []byte, i int) (uint64, bool) {
	if i+4 > len(raw) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(raw[i:i+4]), 16, 32)
	return v, err == nil
}

// jsonPathAt returns the path of the object key or value whose text spans offset off: a.b[2].c.
// "" when off is outside every field (or the JSON does not parse that far).
func jsonPathAt(raw []byte, off int64) string {
	type frame struct {
		obj       bool
		key       string
		idx       int
		expectKey bool
	}
	var stack []*frame
	path := func() string {
		var b []byte
		for _, f := range stack {
			if f.obj {
				if len(b) > 0 {
					b = append(b, '.')
				}
				b = append(b, f.key...)
			} else if f.idx >= 0 {
				b = append(b, '[')
				b = strconv.AppendInt(b, int64(f.idx), 10)
				b = append(b, ']')
			}
		}
		return string(b)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		end := dec.InputOffset()
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].obj {
				stack[len(stack)-1].expectKey = true
			}
			continue
		}
		if top != nil && top.obj && top.expectKey {
			top.key, _ = tok.(string)
			top.expectKey = false
			if end > off {
				return path()
			}
			continue
		}
		if top != nil && !top.obj {
			top.idx++
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, &frame{obj: d == '{', idx: -1, expectKey: d == '{'})
			continue
		}
		if end > off {
			return path()
		}
		if top != nil && top.obj {
			top.expectKey = true
		}
	}
}
