package mcptools

import "github.com/mark3labs/mcp-go/mcp"

// withElicitationDefaults applies the defaults of an elicitation's requested schema to an
// accepted answer (SEP-1034): every top-level property the answer leaves out that declares a
// primitive default (string, number, integer or boolean, as the spec's restricted schema allows)
// gets it. Values the agent gave are kept; a declined or cancelled answer carries no content and
// is left alone, as is an answer whose content is not an object.
func withElicitationDefaults(schema any, res *mcp.ElicitationResult) {
	if res == nil || res.Action != mcp.ElicitationResponseActionAccept {
		return
	}
	s, _ := schema.(map[string]any)
	props, _ := s["properties"].(map[string]any)
	if len(props) == 0 {
		return
	}
	var content map[string]any
	switch c := res.Content.(type) {
	case nil:
		content = map[string]any{}
	case map[string]any:
		content = c
	default:
		return
	}
	for name, p := range props {
		prop, _ := p.(map[string]any)
		def, has := prop["default"]
		if !has || !primitiveDefault(def) {
			continue
		}
		if _, given := content[name]; !given {
			content[name] = def
		}
	}
	if len(content) > 0 {
		res.Content = content
	}
}

// primitiveDefault reports whether a default decoded from JSON is a string, number or boolean.
func primitiveDefault(v any) bool {
	switch v.(type) {
	case string, float64, bool:
		return true
	}
	return false
}
