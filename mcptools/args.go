package mcptools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

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
	// respelled are the arguments given in the deprecated casing of their parameter, as
	// "service_id → serviceId"; the result carries a warning naming them.
	respelled []string
}

// decodeArgs checks raw arguments (a JSON object, or nothing) against the tool's parameters:
// no unknown names, required ones present, each of its declared type. An argument spelled in the
// other casing of a parameter's name is taken as that parameter and listed in respelled. Every
// failure is an INVALID_ARGUMENT error that lists what the tool takes.
func decodeArgs(spec *ToolSpec, raw json.RawMessage) (vals map[string]any, respelled []string, err error) {
	fields := map[string]json.RawMessage{}
	raw = bytes.TrimSpace(raw)
	if err := checkText(spec, "", raw); err != nil {
		return nil, nil, err
	}
	if len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		if !decodeMembers(raw, fields) {
			return nil, nil, argError(spec, "", "the arguments must be a JSON object")
		}
	}
	respelled, both := respell(fields, spec.hasParam)
	if both != "" {
		return nil, nil, argError(spec, both, "parameter %q is given twice, in both casings; send %s only", both, both)
	}
	var unknown []string
	for name := range fields {
		if !spec.hasParam(name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, nil, argError(spec, unknown[0], "unknown parameter %s", quoteList(unknown))
	}
	vals = make(map[string]any, len(fields))
	for _, p := range spec.Params {
		v, ok := fields[p.Name]
		if !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			if p.Required {
				return nil, nil, argError(spec, p.Name, "parameter %q is required", p.Name)
			}
			continue
		}
		val, err := decodeParam(spec, &p, v)
		if err != nil {
			return nil, nil, err
		}
		vals[p.Name] = val
	}
	return vals, respelled, nil
}

// Parameter names keep the original Agent Deck's spelling (SPEC §4.1), which mixes camelCase
// (serviceId, toolName, workspaceRoot) and snake_case (playbook_id, service_id): renaming one
// would break every prompt and harness written for it. The other casing of a name is accepted
// as a deprecated spelling, and the result warns (respelledWarning).

// otherCasing is name in the other convention: serviceId ⇄ service_id; "" when it has none.
func otherCasing(name string) string {
	var b strings.Builder
	if strings.Contains(name, "_") {
		up := false
		for _, r := range name {
			switch {
			case r == '_':
				up = true
			case up:
				b.WriteString(strings.ToUpper(string(r)))
				up = false
			default:
				b.WriteRune(r)
			}
		}
		return b.String()
	}
	for _, r := range name {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	if b.Len() == len(name) {
		return ""
	}
	return b.String()
}

// respell renames the arguments spelled in the other casing of a parameter to the parameter's
// own name and returns them, sorted, as "given → name"; both names given at once is returned as
// both (the parameter's own name).
func respell(fields map[string]json.RawMessage, has func(string) bool) (respelled []string, both string) {
	for given := range fields {
		if has(given) {
			continue // spelled as the tool lists it: no other casing to build
		}
		name := otherCasing(given)
		if name == "" || !has(name) {
			continue
		}
		if _, dup := fields[name]; dup {
			return nil, name
		}
		respelled = append(respelled, given+" → "+name)
	}
	sort.Strings(respelled)
	for _, r := range respelled {
		given, name, _ := strings.Cut(r, " → ")
		fields[name] = fields[given]
		delete(fields, given)
	}
	return respelled, ""
}

// respelledWarning is the text block a result gains when arguments used the deprecated casing.
func respelledWarning(tool string, respelled []string) mcp.Content {
	b, _ := json.Marshal(map[string]string{"warning": tool + ": deprecated parameter spelling " +
		strings.Join(respelled, ", ") + "; use the names the tool lists (the other casing will stop working)"})
	return mcp.NewTextContent(string(b))
}

// decodeParam converts one argument to the Go value of its declared type.
func decodeParam(spec *ToolSpec, p *Param, v json.RawMessage) (any, error) {
	bad := func() error {
		return argError(spec, p.Name, "parameter %q must be %s, got %s", p.Name, typeNoun(p.Type), jsonKind(v))
	}
	switch p.Type {
	case TString:
		s, ok := plainString(v)
		if !ok && json.Unmarshal(v, &s) != nil {
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
	case TTextObject:
		return decodeTextObject(spec, p, v)
	}
	return nil, bad()
}

// decodeObjectOrString accepts a JSON object, or a string holding one (models often send tool
// arguments as a JSON string); an empty string means no arguments.
func decodeObjectOrString(spec *ToolSpec, p *Param, v json.RawMessage) (any, error) {
	if t := bytes.TrimSpace(v); len(t) > 0 && t[0] == '{' {
		return json.RawMessage(t), nil // an object, valid JSON since the arguments decoded
	}
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

// decodeTextObject accepts an object of p's text properties; a string is taken as the first
// property's text, or, when it holds a JSON object, as that object (models often send objects
// as JSON strings). Properties it does not declare are refused, naming those it does.
func decodeTextObject(spec *ToolSpec, p *Param, v json.RawMessage) (any, error) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		if t := strings.TrimSpace(s); !strings.HasPrefix(t, "{") || !json.Valid([]byte(t)) {
			return json.RawMessage(mustJSON(map[string]string{p.Props[0]: s})), nil
		}
		v = json.RawMessage(s)
		if err := checkText(spec, p.Name, v); err != nil {
			return nil, err
		}
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(v, &obj) != nil || obj == nil {
		return nil, argError(spec, p.Name, "parameter %q must be an object with %s (or a plain string, taken as %s), got %s",
			p.Name, strings.Join(p.Props, ", "), p.Props[0], jsonKind(v))
	}
	for k, x := range obj {
		var text string
		if !containsStr(p.Props, k) {
			return nil, argError(spec, p.Name, "parameter %q has no field %q; it takes %s", p.Name, clipText(k, 40),
				strings.Join(p.Props, ", "))
		}
		if json.Unmarshal(x, &text) != nil && string(bytes.TrimSpace(x)) != "null" {
			return nil, argError(spec, p.Name+"."+k, "%s.%s must be a string, got %s", p.Name, k, jsonKind(x))
		}
	}
	return json.RawMessage(bytes.TrimSpace(v)), nil
}

// hasParam reports whether the tool has a parameter of that name (a handful: a scan beats a map
// built per call).
func (spec *ToolSpec) hasParam(name string) bool {
	for i := range spec.Params {
		if spec.Params[i].Name == name {
			return true
		}
	}
	return false
}

// decodeMembers fills fields with the members of JSON object raw as json.Unmarshal into a
// map[string]json.RawMessage does (names unescaped, the last of a repeated name kept, each
// value as sent), and reports whether raw is one. It runs on every tool call: after one
// validation the members are split in place, in one copy of raw, without the decoder.
func decodeMembers(raw []byte, fields map[string]json.RawMessage) bool {
	if !json.Valid(raw) {
		return false
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return string(t) == "null" // no members, as json.Unmarshal takes it
	}
	b := bytes.Clone(bytes.TrimSpace(raw))
	for i := backend.SkipJSONSpace(b, 1); i < len(b) && b[i] == '"'; {
		end := backend.SkipJSONString(b, i)
		name, ok := plainString(b[i:end])
		if !ok && json.Unmarshal(b[i:end], &name) != nil {
			return false
		}
		vs := backend.SkipJSONSpace(b, backend.SkipJSONSpace(b, end)+1) // past the colon
		ve := backend.SkipJSONValue(b, vs)
		fields[name] = b[vs:ve:ve]
		i = backend.SkipJSONSpace(b, ve)
		if i < len(b) && b[i] == ',' {
			i = backend.SkipJSONSpace(b, i+1)
		}
	}
	return true
}

// plainString is the value of a JSON string with nothing to unescape, without the decoder.
func plainString(v []byte) (string, bool) {
	s, ok := backend.PlainJSONString(v)
	return string(s), ok
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
