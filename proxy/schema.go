package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// compiled is a tool's input schema, compiled once per tool list. sch is nil when the schema
// cannot be compiled (a downstream's sloppy or remote-referencing schema): such tools are
// forwarded without validation rather than made uncallable.
type compiled struct {
	sch *jsonschema.Schema
}

var printer = message.NewPrinter(language.English)

// schemaFor compiles (once) the input schema of tool.
func (ts *toolSet) schemaFor(tool backend.DownstreamTool) *jsonschema.Schema {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if c, ok := ts.schemas[tool.Name]; ok {
		return c.sch
	}
	c := &compiled{sch: compileSchema(tool.Name, tool.InputSchema)}
	ts.schemas[tool.Name] = c
	return c.sch
}

func compileSchema(name string, raw json.RawMessage) *jsonschema.Schema {
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		return nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	// No URL loader: a schema's remote $ref is never fetched (it fails to compile instead).
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	loc := "mem:///tools/" + url.PathEscape(name) + ".json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil
	}
	sch, err := c.Compile(loc)
	if err != nil {
		return nil
	}
	return sch
}

// normalizeArgs accepts a JSON object, a JSON string holding one, or nothing ({}).
func normalizeArgs(args json.RawMessage) (json.RawMessage, *backend.Error) {
	a := bytes.TrimSpace(args)
	if len(a) == 0 || string(a) == "null" {
		return json.RawMessage("{}"), nil
	}
	if a[0] == '"' {
		var s string
		if err := json.Unmarshal(a, &s); err != nil {
			return nil, badArgs()
		}
		a = bytes.TrimSpace([]byte(s))
		if len(a) == 0 {
			return json.RawMessage("{}"), nil
		}
	}
	if a[0] != '{' || !json.Valid(a) {
		return nil, badArgs()
	}
	return json.RawMessage(a), nil
}

func badArgs() *backend.Error {
	return backend.Errorf(backend.CodeInvalidArgument, "arguments must be a JSON object (or a JSON string holding one)").
		WithHint(`pass e.g. {"message": "hi"}; the service's tool list shows each tool's parameters`)
}

// validateArgs checks args against tool's input schema; the error teaches the parameters.
func (ts *toolSet) validateArgs(tool backend.DownstreamTool, args json.RawMessage) error {
	sch := ts.schemaFor(tool)
	if sch == nil {
		return nil
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return invalidArgs(tool, []string{"arguments are not valid JSON"})
	}
	err = sch.Validate(inst)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return nil
	}
	var problems []string
	collectProblems(ve, &problems)
	return invalidArgs(tool, problems)
}

// collectProblems gathers the leaf validation failures, at most five, as "where: what".
func collectProblems(e *jsonschema.ValidationError, out *[]string) {
	if len(*out) >= 5 {
		return
	}
	if len(e.Causes) == 0 {
		where := "arguments"
		if len(e.InstanceLocation) > 0 {
			where = strings.Join(e.InstanceLocation, ".")
		}
		*out = append(*out, where+": "+e.ErrorKind.LocalizedString(printer))
		return
	}
	for _, c := range e.Causes {
		collectProblems(c, out)
	}
}

// param describes one parameter of a tool, for teaching errors.
type param struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Required bool   `json:"required"`
}

func invalidArgs(tool backend.DownstreamTool, problems []string) *backend.Error {
	params := schemaParams(tool.InputSchema)
	return backend.Errorf(backend.CodeInvalidArgument, "arguments do not match the input schema of %s: %s. Parameters: %s",
		tool.Name, strings.Join(problems, "; "), describeParams(params)).
		WithDetail("tool", tool.Name).
		WithDetail("problems", problems).
		WithDetail("parameters", params).
		WithHint("pass arguments as a JSON object with the parameters above; the service's tool list shows the full schema")
}

func describeParams(params []param) string {
	if len(params) == 0 {
		return "none"
	}
	parts := make([]string, len(params))
	for i, p := range params {
		req := ""
		if p.Required {
			req = ", required"
		}
		parts[i] = fmt.Sprintf("%s (%s%s)", p.Name, p.Type, req)
	}
	return strings.Join(parts, ", ")
}

// schemaParams lists the top-level properties of an input schema in the order the schema
// declares them, required ones first.
func schemaParams(raw json.RawMessage) []param {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	fields, _ := objectFields(s.Properties)
	params := make([]param, 0, len(fields))
	for _, f := range fields {
		params = append(params, param{Name: f.key, Type: typeOf(s.Properties[f.valStart:f.valEnd]), Required: required[f.key]})
	}
	sort.SliceStable(params, func(i, j int) bool { return params[i].Required && !params[j].Required })
	return params
}

// typeOf names a property's type the way a person would write it: "string", "integer|null",
// "array of string", "one of a, b".
func typeOf(raw []byte) string {
	var p struct {
		Type  json.RawMessage   `json:"type"`
		Enum  []json.RawMessage `json:"enum"`
		Items json.RawMessage   `json:"items"`
		Ref   string            `json:"$ref"`
		AnyOf []json.RawMessage `json:"anyOf"`
		OneOf []json.RawMessage `json:"oneOf"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return "any"
	}
	if len(p.Enum) > 0 {
		vals := make([]string, 0, len(p.Enum))
		for _, e := range p.Enum {
			vals = append(vals, string(e))
		}
		return "one of " + strings.Join(vals, ", ")
	}
	var types []string
	var one string
	if json.Unmarshal(p.Type, &one) == nil && one != "" {
		types = []string{one}
	} else {
		_ = json.Unmarshal(p.Type, &types)
	}
	for _, alt := range append(p.AnyOf, p.OneOf...) {
		types = append(types, typeOf(alt))
	}
	if len(types) == 0 {
		if p.Ref != "" {
			return "object"
		}
		return "any"
	}
	t := strings.Join(types, "|")
	if t == "array" && len(p.Items) > 0 {
		return "array of " + typeOf(p.Items)
	}
	return t
}
