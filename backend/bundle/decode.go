package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// MaxBundleBytes bounds a bundle an import will read.
const MaxBytes = 64 << 20

// bundleError is the INVALID_ARGUMENT for a bundle problem: message and details carry the exact
// JSON path (e.g. $.services[3].type) so a person can find it.
func PathError(path, format string, args ...any) *backend.Error {
	return backend.Errorf(backend.CodeInvalidArgument, "bundle %s: %s", path, fmt.Sprintf(format, args...)).
		WithDetail("path", path).WithDetail("field", path).
		WithHint(`a bundle is {"format":"agent-deck-bundle","version":1,...} as agent-deck export writes it; fix the value at the path named`)
}

// atPath re-anchors a field validation error of the core (field "name") at a bundle path.
func AtPath(err error, path string) error {
	var e *backend.Error
	if !errors.As(err, &e) {
		return err
	}
	if e.Code != backend.CodeInvalidArgument {
		out := *e
		out.Message = e.Message + " (bundle " + path + ")"
		out.Details = map[string]any{}
		for k, v := range e.Details {
			out.Details[k] = v
		}
		return out.WithDetail("path", path)
	}
	field, _ := e.Details["field"].(string)
	full := path
	if field != "" && !strings.HasPrefix(field, "$") {
		full = path + "." + field
	}
	msg := strings.TrimPrefix(e.Message, field+": ")
	out := PathError(full, "%s", msg)
	out.Hint = e.Hint
	for k, v := range e.Details {
		if k != "field" {
			out.WithDetail(k, v)
		}
	}
	return out.WithDetail("path", full)
}

func Key(path, key string) string { return path + "." + key }
func Index(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// jobj checks v is an object with only the allowed keys.
func jobj(path string, v any, allowed ...string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, PathError(path, "expected an object, got %s", jtype(v))
	}
	var unknown []string
	for k := range m {
		if !slices.Contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return nil, PathError(Key(path, unknown[0]), "unknown field; accepted: %s", strings.Join(allowed, ", ")).
			WithDetail("accepted", allowed)
	}
	return m, nil
}

func jtype(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

// jstr reads an optional string member ("" when absent); required ones must be non-empty.
func jstr(path string, m map[string]any, key string, required bool) (string, error) {
	v, ok := m[key]
	if !ok || v == nil {
		if required {
			return "", PathError(Key(path, key), "is required")
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", PathError(Key(path, key), "expected a string, got %s", jtype(v))
	}
	if required && strings.TrimSpace(s) == "" {
		return "", PathError(Key(path, key), "must not be empty")
	}
	return s, nil
}

func jstrs(path string, m map[string]any, key string) ([]string, error) {
	arr, err := jarr(path, m, key)
	if err != nil || arr == nil {
		return nil, err
	}
	out := make([]string, len(arr))
	for i, v := range arr {
		s, ok := v.(string)
		if !ok {
			return nil, PathError(Index(Key(path, key), i), "expected a string, got %s", jtype(v))
		}
		out[i] = s
	}
	return out, nil
}

func jarr(path string, m map[string]any, key string) ([]any, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, nil
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, PathError(Key(path, key), "expected an array, got %s", jtype(v))
	}
	return arr, nil
}

func jstrMap(path string, m map[string]any, key string) (map[string]string, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, PathError(Key(path, key), "expected an object of strings, got %s", jtype(v))
	}
	out := make(map[string]string, len(obj))
	for k, x := range obj {
		s, ok := x.(string)
		if !ok {
			return nil, PathError(Key(Key(path, key), k), "expected a string, got %s", jtype(x))
		}
		out[k] = s
	}
	return out, nil
}

func jbool(path string, m map[string]any, key string) (bool, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, PathError(Key(path, key), "expected true or false, got %s", jtype(v))
	}
	return b, nil
}

func jint(path string, m map[string]any, key string) (int, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return 0, nil
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, PathError(Key(path, key), "expected an integer, got %s", jtype(v))
	}
	i, err := strconv.ParseInt(n.String(), 10, 32)
	if err != nil {
		return 0, PathError(Key(path, key), "expected an integer, got %s", n)
	}
	return int(i), nil
}

// parseBundle decodes a bundle strictly: valid JSON, one top-level object, the known format and
// version, only known fields with the right types. Each failure names its JSON path.
func Parse(raw []byte) (Bundle, error) {
	if len(raw) > MaxBytes {
		return Bundle{}, PathError("$", "is %d bytes; the limit is %d", len(raw), MaxBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return Bundle{}, PathError("$", "is not valid JSON (%s)", jsonProblem(err))
	}
	if _, err := dec.Token(); err == nil {
		return Bundle{}, PathError("$", "has data after the bundle object")
	}
	root, err := jobj("$", v, "format", "version", "exported_at", "services", "credentials", "playbooks", "decks")
	if err != nil {
		return Bundle{}, err
	}
	var b Bundle
	if b.Format, err = jstr("$", root, "format", true); err != nil {
		return Bundle{}, err
	}
	if b.Format != Format {
		return Bundle{}, PathError("$.format", "%q is not an Agent Deck bundle; expected %q", backend.Clip(b.Format, 60), Format)
	}
	if _, ok := root["version"]; !ok {
		return Bundle{}, PathError("$.version", "is required")
	}
	if b.Version, err = jint("$", root, "version"); err != nil {
		return Bundle{}, err
	}
	if b.Version != Version {
		return Bundle{}, PathError("$.version", "version %d is not supported; this server reads version %d",
			b.Version, Version)
	}
	if _, err := jstr("$", root, "exported_at", false); err != nil {
		return Bundle{}, err
	}
	return b, parseSections(root, &b)
}

func jsonProblem(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v at byte %d", se, se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("wrong type at byte %d", te.Offset)
	}
	return "unexpected end of input"
}

func parseSections(root map[string]any, b *Bundle) error {
	sections := []struct {
		key   string
		parse func(string, any) error
	}{
		{"services", func(p string, v any) error {
			s, err := parseService(p, v)
			b.Services = append(b.Services, s)
			return err
		}},
		{"credentials", func(p string, v any) error {
			c, err := parseCredential(p, v)
			b.Credentials = append(b.Credentials, c)
			return err
		}},
		{"playbooks", func(p string, v any) error {
			pb, err := parsePlaybook(p, v)
			b.Playbooks = append(b.Playbooks, pb)
			return err
		}},
		{"decks", func(p string, v any) error { d, err := parseDeck(p, v); b.Decks = append(b.Decks, d); return err }},
	}
	for _, sec := range sections {
		arr, err := jarr("$", root, sec.key)
		if err != nil {
			return err
		}
		for i, v := range arr {
			if err := sec.parse(Index("$."+sec.key, i), v); err != nil {
				return err
			}
		}
	}
	return nil
}
