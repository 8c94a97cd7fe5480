package dashboardapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend"
)

// badInput is an INVALID_ARGUMENT error naming the field at fault; its hint points to the
// document that lists what every route accepts (callers may set a more specific one).
func badInput(field, format string, args ...any) *backend.Error {
	e := backend.Errorf(backend.CodeInvalidArgument, format, args...).
		WithHint("GET " + v1 + "/openapi.json (no token needed) lists each route's accepted fields, types and query parameters")
	if field != "" {
		e = e.WithDetail("field", field)
	}
	return e
}

// readBody reads the request body under limit. A route that takes no body accepts only an
// empty one or an empty JSON object.
func readBody(c *gin.Context, limit int64, wantBody bool) ([]byte, error) {
	if c.Request.ContentLength > limit {
		return nil, tooLarge(limit)
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, limit))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, tooLarge(limit)
		}
		return nil, badInput("", "the request body could not be read")
	}
	if !wantBody {
		if t := bytes.TrimSpace(body); len(t) > 0 && !isEmptyObject(t) {
			return nil, badInput("", "this endpoint takes no request body")
		}
	}
	return body, nil
}

func tooLarge(limit int64) *backend.Error {
	return badInput("", "the request body is larger than the limit of %d bytes", limit).
		WithDetail("limit_bytes", limit)
}

func isEmptyObject(b []byte) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(b, &m) == nil && m != nil && len(m) == 0
}

// decodeBody decodes a JSON body into dst strictly: a single JSON object, no unknown or
// differently-cased keys, every required key present and not null, every value of the right
// type. Errors name the field and what it accepts; Go's own error text never reaches the client.
// A json.RawMessage destination takes any valid JSON value as is. Text that the decoder would
// silently repair (invalid UTF-8, lone surrogate escapes) is refused first.
func decodeBody(body []byte, dst any) error {
	body = bytes.TrimSpace(body)
	if err := backend.CheckJSONText(body); err != nil {
		return err
	}
	t := reflect.TypeOf(dst).Elem()
	if t == rawMessageType {
		if len(body) == 0 {
			return badInput("", "the request body is empty; expected a JSON document")
		}
		if !json.Valid(body) {
			return syntaxError(body)
		}
		reflect.ValueOf(dst).Elem().SetBytes(bytes.Clone(body))
		return nil
	}
	fields := jsonFields(t)
	if len(body) == 0 {
		return badInput("", "the request body is empty; expected a JSON object with fields %s",
			strings.Join(fieldNames(fields), ", ")).WithDetail("accepted", fieldNames(fields))
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil || top == nil {
		if _, ok := errors.AsType[*json.SyntaxError](err); ok {
			return syntaxError(body)
		}
		return badInput("", "the request body must be a JSON object")
	}
	if err := checkKeys(top, fields); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return typeError(err, fields)
	}
	return nil
}

// checkKeys refuses unknown keys (listing the accepted ones) and missing or null required keys.
func checkKeys(top map[string]json.RawMessage, fields []field) error {
	known := map[string]bool{}
	for _, f := range fields {
		known[f.name] = true
	}
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !known[k] {
			return badInput(clipText(k, 80), "unknown field %q; accepted fields: %s", clipText(k, 80),
				strings.Join(fieldNames(fields), ", ")).WithDetail("accepted", fieldNames(fields))
		}
	}
	for _, f := range fields {
		v, ok := top[f.name]
		if f.required && (!ok || string(v) == "null") {
			return badInput(f.name, "missing required field %q (%s)", f.name, describeType(f.typ))
		}
	}
	return nil
}

// syntaxError reports where the JSON stops being JSON, without Go's wording.
func syntaxError(body []byte) error {
	var v any
	err := json.Unmarshal(body, &v)
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return badInput("", "the request body is not valid JSON (problem at byte %d)", se.Offset).
			WithDetail("offset", se.Offset)
	}
	return badInput("", "the request body is not valid JSON")
}

// typeError translates a decoding failure into a message naming the field and its type.
func typeError(err error, fields []field) error {
	te, ok := errors.AsType[*json.UnmarshalTypeError](err)
	if !ok || te.Field == "" {
		return badInput("", "the request body does not match the expected shape; accepted fields: %s",
			strings.Join(fieldNames(fields), ", "))
	}
	path, top := jsonPath(te.Field, fields)
	if top == nil {
		return badInput("", "a value in the request body has the wrong type; accepted fields: %s",
			strings.Join(fieldNames(fields), ", "))
	}
	want := describeType(top.typ)
	got, _, _ := strings.Cut(te.Value, " ")
	return badInput(path, "field %q must be %s, got %s", path, want, jsonKind(got)).
		WithDetail("expected", want)
}

// jsonPath drops the Go names of embedded structs from a decoder field path ("CardRef.card_id"
// becomes "card_id") and returns the top-level field it starts with.
func jsonPath(goPath string, fields []field) (string, *field) {
	segs := strings.Split(goPath, ".")
	for i, seg := range segs {
		for j := range fields {
			if fields[j].name == seg {
				return strings.Join(segs[i:], "."), &fields[j]
			}
		}
	}
	return "", nil
}

// jsonKind names a JSON value kind as the decoder reports it ("string", "number", "bool", …).
func jsonKind(v string) string {
	switch v {
	case "bool":
		return "a boolean"
	case "number", "string":
		return "a " + v
	case "array", "object":
		return "an " + v
	default:
		return "a value of another type"
	}
}

// validText reports whether s is UTF-8 without control characters.
func validText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// maxParamChars bounds path and query values: ids and names are far shorter.
const maxParamChars = 200

// checkPathParams refuses path parameters that cannot be an id or a name.
func checkPathParams(c *gin.Context) error {
	for _, p := range c.Params {
		if err := checkParamValue("path parameter", p.Key, p.Value); err != nil {
			return err
		}
	}
	return nil
}

func checkParamValue(kind, name, v string) error {
	switch {
	case len([]rune(v)) > maxParamChars:
		return badInput(name, "%s %s must be at most %d characters", kind, name, maxParamChars)
	case !validText(v):
		return badInput(name, "%s %s must be valid UTF-8 without control characters", kind, name)
	}
	return nil
}

// checkQuery refuses undeclared, repeated, missing or malformed query parameters.
func checkQuery(c *gin.Context, declared []queryParam) error {
	values := c.Request.URL.Query()
	accepted := make([]string, len(declared))
	for i, q := range declared {
		accepted[i] = q.name
	}
	for name, vs := range values {
		if !slices.Contains(accepted, name) {
			return unknownQuery(name, accepted)
		}
		if len(vs) > 1 {
			return badInput(name, "query parameter %s is given more than once", name)
		}
	}
	for _, q := range declared {
		if err := checkQueryValue(q, values.Get(q.name), values.Has(q.name)); err != nil {
			return err
		}
	}
	return nil
}

func unknownQuery(name string, accepted []string) error {
	name = clipText(name, 80)
	if len(accepted) == 0 {
		return badInput(name, "unknown query parameter %q; this endpoint takes none", name)
	}
	return badInput(name, "unknown query parameter %q; accepted: %s", name,
		strings.Join(accepted, ", ")).WithDetail("accepted", accepted)
}

func checkQueryValue(q queryParam, v string, present bool) error {
	switch {
	case q.required && strings.TrimSpace(v) == "":
		return badInput(q.name, "query parameter %s is required", q.name)
	case !present:
		return nil
	case q.boolean && v != "true" && v != "false":
		return badInput(q.name, "query parameter %s must be true or false", q.name).
			WithDetail("accepted", []string{"true", "false"})
	case q.integer:
		if n, err := strconv.Atoi(v); err != nil || n < q.min || n > q.max {
			return badInput(q.name, "query parameter %s must be a whole number from %d to %d, got %q",
				q.name, q.min, q.max, clipText(v, 40)).WithDetail("minimum", q.min).WithDetail("maximum", q.max)
		}
		return nil
	case len(q.enum) > 0 && !slices.Contains(q.enum, v):
		return badInput(q.name, "query parameter %s must be one of %s", q.name,
			strings.Join(q.enum, ", ")).WithDetail("accepted", q.enum)
	}
	return checkParamValue("query parameter", q.name, v)
}

// intQuery reads a whole-number query parameter that checkQuery has already checked; 0 when it
// is absent.
func intQuery(c *gin.Context, name string) int {
	n, _ := strconv.Atoi(c.Query(name))
	return n
}

// clipText shortens s for a message.
func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// mustJSON encodes values that are built here and always encodable.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("dashboardapi: encoding a constant value: %v", err))
	}
	return b
}

func internalEncoding(err error) error { return backend.Internal("encoding the response", err) }
