package mcptools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// call is one decoded tool call: the caller's session and its arguments, checked against the
// tool's parameters and converted to Go values.
type call struct {
	svc       *core.Hub
	sessionID string
	spec      *ToolSpec
	vals      map[string]any
}

// decodeArgs checks raw arguments (a JSON object, or nothing) against the tool's parameters:
// no unknown names, required ones present, each of its declared type. Every failure is an
// INVALID_ARGUMENT error that lists what the tool takes.
func decodeArgs(spec *ToolSpec, raw json.RawMessage) (map[string]any, error) {
	fields := map[string]json.RawMessage{}
	raw = bytes.TrimSpace(raw)
	if err := checkText(spec, "", raw); err != nil {
		return nil, err
	}
	if len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, argError(spec, "", "the arguments must be a JSON object")
		}
	}
	byName := make(map[string]*Param, len(spec.Params))
	for i := range spec.Params {
		byName[spec.Params[i].Name] = &spec.Params[i]
	}
	var unknown []string
	for name := range fields {
		if byName[name] == nil {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, argError(spec, unknown[0], "unknown parameter %s", quoteList(unknown))
	}
	vals := make(map[string]any, len(fields))
	for _, p := range spec.Params {
		v, ok := fields[p.Name]
		if !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			if p.Required {
				return nil, argError(spec, p.Name, "parameter %q is required", p.Name)
			}
			continue
		}
		val, err := decodeParam(spec, &p, v)
		if err != nil {
			return nil, err
		}
		vals[p.Name] = val
	}
	return vals, nil
}

// decodeParam converts one argument to the Go value of its declared type.
func decodeParam(spec *ToolSpec, p *Param, v json.RawMessage) (any, error) {
	bad := func() error {
		return argError(spec, p.Name, "parameter %q must be %s, got %s", p.Name, typeNoun(p.Type), jsonKind(v))
	}
	switch p.Type {
	case TString:
		var s string
		if json.Unmarshal(v, &s) != nil {
			return nil, bad()
		}
		if len(p.Enum) > 0 && !containsStr(p.Enum, s) {
			return nil, argError(spec, p.Name, "parameter %q is %q; accepted: %s", p.Name, clipText(s, 60),
				strings.Join(p.Enum, ", "))
		}
		return s, nil
	case TInt:
		var f float64
		if json.Unmarshal(v, &f) != nil || f != math.Trunc(f) || math.Abs(f) > 1<<31 {
			return nil, bad()
		}
		return int(f), nil
	case TBool:
		var b bool
		if json.Unmarshal(v, &b) != nil {
			return nil, bad()
		}
		return b, nil
	case TStrings:
		var list []string
		if json.Unmarshal(v, &list) != nil {
			return nil, bad()
		}
		if list == nil {
			list = []string{}
		}
		return list, nil
	case TStrMap:
		var m map[string]string
		if json.Unmarshal(v, &m) != nil {
			return nil, bad()
		}
		return m, nil
	case TObjOrStr:
		return decodeObjectOrString(spec, p, v)
	case TObjects:
		return decodeObjects(spec, p, v)
	}
	return nil, bad()
}

// decodeObjectOrString accepts a JSON object, or a string holding one (models often send tool
// arguments as a JSON string); an empty string means no arguments.
func decodeObjectOrString(spec *ToolSpec, p *Param, v json.RawMessage) (any, error) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		if strings.TrimSpace(s) == "" {
			return json.RawMessage("{}"), nil
		}
		v = json.RawMessage(s)
		if err := checkText(spec, p.Name, v); err != nil {
			return nil, err
		}
		if err := jsonSyntax(s); err != "" {
			return nil, argError(spec, p.Name, "parameter %q is a string that is not valid JSON: %s", p.Name, err)
		}
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(v, &obj) != nil || obj == nil {
		return nil, argError(spec, p.Name, "parameter %q must be a JSON object (or a string holding one), got %s",
			p.Name, jsonKind(v))
	}
	return json.RawMessage(bytes.TrimSpace(v)), nil
}

// decodeObjects accepts a JSON array of objects, or a string holding one.
func decodeObjects(spec *ToolSpec, p *Param, v json.RawMessage) (any, error) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		v = json.RawMessage(s)
		if err := checkText(spec, p.Name, v); err != nil {
			return nil, err
		}
	}
	var list []map[string]json.RawMessage
	if json.Unmarshal(v, &list) != nil {
		return nil, argError(spec, p.Name, "parameter %q must be an array of objects, got %s", p.Name, jsonKind(v))
	}
	return json.RawMessage(bytes.TrimSpace(v)), nil
}

// jsonSyntax describes why s is not JSON, with the line and column where the parser stopped;
// "" when it is valid JSON.
func jsonSyntax(s string) string {
	var x any
	err := json.Unmarshal([]byte(s), &x)
	if err == nil {
		return ""
	}
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return "the text ends before the JSON value does"
	}
	off := int(min(max(se.Offset, 1), int64(len(s))))
	line := 1 + strings.Count(s[:off-1], "\n")
	col := off - strings.LastIndex(s[:off-1], "\n") - 1
	return fmt.Sprintf("%s at line %d, column %d (byte %d)", se.Error(), line, col, se.Offset)
}

// checkText refuses arguments whose text the JSON decoder would silently repair or resolve
// (invalid UTF-8, lone surrogate escapes, a key given twice), naming the parameter that holds
// it; prefix is the parameter that held raw as a string, if any.
func checkText(spec *ToolSpec, prefix string, raw json.RawMessage) error {
	err := backend.CheckJSONText(raw)
	if err == nil {
		return nil
	}
	details := backend.AsError(err).Details
	field, _ := details["field"].(string)
	if prefix != "" {
		field = strings.Trim(prefix+"."+field, ".")
	}
	if details["problem"] == "a key given twice" {
		if field == "" {
			return argError(spec, "", "the arguments name a key twice; name each key of a JSON object once")
		}
		return argError(spec, field, "parameter %q is given twice; name each key of a JSON object once", field)
	}
	if field == "" {
		return argError(spec, "", "the arguments hold text that is not valid UTF-8 or a lone surrogate escape")
	}
	return argError(spec, field, "parameter %q holds text that is not valid UTF-8 or a lone surrogate escape", field)
}

// argError is an INVALID_ARGUMENT error whose hint lists the tool's parameters.
func argError(spec *ToolSpec, field, format string, args ...any) error {
	e := backend.Errorf(backend.CodeInvalidArgument, "%s: %s", spec.Name, fmt.Sprintf(format, args...)).
		WithHint(spec.paramList())
	if field != "" {
		e = e.WithDetail("field", field)
	}
	return e
}

func typeNoun(t ParamType) string {
	switch t {
	case TString:
		return "a string"
	case TInt:
		return "an integer"
	case TBool:
		return "true or false"
	case TStrings:
		return "an array of strings"
	case TStrMap:
		return "an object of string values"
	case TObjects:
		return "an array of objects"
	}
	return "a JSON object"
}

// jsonKind names the JSON type of a value, for "got …" in messages.
func jsonKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func quoteList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = fmt.Sprintf("%q", clipText(s, 60))
	}
	return strings.Join(q, ", ")
}

func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Typed getters: decodeArgs has already checked each value's type.

func (c *call) str(name string) string {
	s, _ := c.vals[name].(string)
	return s
}

func (c *call) optStr(name string) *string {
	if s, ok := c.vals[name].(string); ok {
		return &s
	}
	return nil
}

func (c *call) optInt(name string) *int {
	if n, ok := c.vals[name].(int); ok {
		return &n
	}
	return nil
}

func (c *call) optBool(name string) *bool {
	if b, ok := c.vals[name].(bool); ok {
		return &b
	}
	return nil
}

func (c *call) strs(name string) []string {
	list, _ := c.vals[name].([]string)
	return list
}

func (c *call) optStrs(name string) *[]string {
	if list, ok := c.vals[name].([]string); ok {
		return &list
	}
	return nil
}

func (c *call) strMap(name string) map[string]string {
	m, _ := c.vals[name].(map[string]string)
	return m
}

func (c *call) optStrMap(name string) *map[string]string {
	if m, ok := c.vals[name].(map[string]string); ok {
		return &m
	}
	return nil
}

func (c *call) raw(name string) json.RawMessage {
	r, _ := c.vals[name].(json.RawMessage)
	return r
}
