package dashboardapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"time"
)

// field is one JSON member of a struct as encoding/json sees it. The strict decoder and the
// OpenAPI schemas both read fields through jsonFields, so what is documented is what is accepted.
type field struct {
	name     string
	typ      reflect.Type
	required bool // no omitempty/omitzero: always present in output, mandatory in input
}

var (
	timeType       = reflect.TypeFor[time.Time]()
	rawMessageType = reflect.TypeFor[json.RawMessage]()
)

// jsonFields lists t's JSON members in encoding/json's order, promoting the fields of embedded
// structs in place (a shallower field wins over a deeper one of the same name).
func jsonFields(t reflect.Type) []field {
	type candidate struct {
		field
		depth int
	}
	var all []candidate
	var walk func(t reflect.Type, depth int)
	walk = func(t reflect.Type, depth int) {
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if sf.Anonymous && name == "" && derefType(sf.Type).Kind() == reflect.Struct {
				walk(derefType(sf.Type), depth+1)
				continue
			}
			if !sf.IsExported() {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			omit := strings.Contains(","+opts+",", ",omitempty,") ||
				strings.Contains(","+opts+",", ",omitzero,")
			all = append(all, candidate{field{name: name, typ: sf.Type, required: !omit}, depth})
		}
	}
	walk(t, 0)
	shallowest := map[string]int{}
	for _, c := range all {
		if d, ok := shallowest[c.name]; !ok || c.depth < d {
			shallowest[c.name] = c.depth
		}
	}
	var out []field
	taken := map[string]bool{}
	for _, c := range all {
		if c.depth == shallowest[c.name] && !taken[c.name] {
			taken[c.name] = true
			out = append(out, c.field)
		}
	}
	return out
}

func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// fieldNames returns the names of fs, for messages that list what is accepted.
func fieldNames(fs []field) []string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return names
}

// describeType says in words what JSON a Go type takes, for error messages.
func describeType(t reflect.Type) string {
	t = derefType(t)
	switch {
	case t == timeType:
		return "an RFC 3339 timestamp string"
	case t == rawMessageType:
		return "any JSON value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array of " + plural(describeType(t.Elem()))
	case reflect.Map:
		return "an object whose values are " + plural(describeType(t.Elem()))
	default:
		return "an object"
	}
}

// plural turns "a string" into "strings" and "an array of strings" into "arrays of strings".
func plural(s string) string {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "a "), "an ")
	if first, rest, ok := strings.Cut(s, " "); ok && (first == "array" || first == "object") {
		return first + "s " + rest
	}
	return s + "s"
}
