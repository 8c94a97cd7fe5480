package dashboardapi

import (
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/authserver"
)

// pathParamDocs describes every path parameter used in the route table; a test checks that
// none is missing.
var pathParamDocs = map[string]map[string]any{
	"deck":       {"description": "deck id or exact name", "schema": map[string]any{"type": "string"}},
	"service":    {"description": "service id or name", "schema": map[string]any{"type": "string"}},
	"tool":       {"description": "name of one of the service's downstream tools", "schema": map[string]any{"type": "string"}},
	"credential": {"description": "credential id (cred_…) or label", "schema": map[string]any{"type": "string"}},
	"playbook":   {"description": "playbook id (pb_…) or title", "schema": map[string]any{"type": "string"}},
	"card_type": {"description": "card type", "schema": map[string]any{"type": "string",
		"enum": backend.CardTypeNames()}},
	"card_id": {"description": "card id or name", "schema": map[string]any{"type": "string"}},
	"version": {"description": "version number", "schema": map[string]any{"type": "integer", "minimum": 1}},
	"token":   {"description": "token id", "schema": map[string]any{"type": "string", "format": "uuid"}},
	"exec":    {"description": "exec audit id", "schema": map[string]any{"type": "integer", "minimum": 1}},

	"code": {"description": "error code", "schema": map[string]any{"type": "string", "enum": codeNames()}},

	"proposal": {"description": "proposal id", "schema": map[string]any{"type": "string", "format": "uuid"}},
	"person":   {"description": "person name or id", "schema": map[string]any{"type": "string"}},
	"session":  {"description": "MCP session id", "schema": map[string]any{"type": "string", "format": "uuid"}},
	"call":     {"description": "tool-call audit entry id", "schema": map[string]any{"type": "integer", "minimum": 1}},
	"profile": {"description": "Go runtime profile (serve --pprof): heap, goroutine, profile, trace, …",
		"schema": map[string]any{"type": "string"}},
}

// enumValues lists the closed sets of the backend's string types, shown as enums.
var enumValues = map[reflect.Type][]string{
	reflect.TypeFor[backend.CardType]():     backend.CardTypeNames(),
	reflect.TypeFor[backend.ServiceType]():  {string(backend.ServiceRemote), string(backend.ServiceLocal)},
	reflect.TypeFor[backend.Transport]():    {string(backend.TransportAuto), string(backend.TransportStreamableHTTP), string(backend.TransportSSE)},
	reflect.TypeFor[backend.HealthStatus](): {string(backend.HealthUnknown), string(backend.HealthHealthy), string(backend.HealthUnhealthy), string(backend.HealthAuthRequired)},
	reflect.TypeFor[backend.AuthScheme]():   {string(backend.SchemeBearer), string(backend.SchemeHeader), string(backend.SchemeHTTPBasicUser)},
	reflect.TypeFor[backend.Scope]():        {string(backend.ScopeAdmin), string(backend.ScopeAgent), string(backend.ScopeAgentRead)},
	reflect.TypeFor[backend.ActorKind]():    {string(backend.ActorUser), string(backend.ActorAgent)},
	reflect.TypeFor[backend.Code]():         codeNames(),

	reflect.TypeFor[backend.ProposalStatus](): proposalStatusNames(),
	reflect.TypeFor[backend.Role]():           {string(backend.RoleAdmin), string(backend.RoleMember)},
	reflect.TypeFor[backend.Sharing]():        {string(backend.SharePrivate), string(backend.ShareEveryone), string(backend.SharePeople)},
}

func codeNames() []string {
	out := make([]string, len(backend.AllCodes))
	for i, c := range backend.AllCodes {
		out[i] = string(c)
	}
	return out
}

// openAPIDocument builds the OpenAPI 3.1 document from the route table.
func openAPIDocument(table []route) map[string]any {
	g := &schemaGen{schemas: map[string]any{}, types: map[string]reflect.Type{}}
	errorRef := g.schema(reflect.TypeFor[Problem]())
	paths := map[string]map[string]any{}
	for _, r := range table {
		p := openAPIPath(r.path)
		if paths[p] == nil {
			paths[p] = map[string]any{}
		}
		paths[p][strings.ToLower(r.method)] = g.operation(r, errorRef)
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "Agent Deck REST API",
			"version":     "1",
			"description": "The API of the Agent Deck dashboard and CLI. JSON in and out, snake_case keys, bearer tokens. Errors are RFC 9457 problem documents (application/problem+json): type, title, status, detail and instance, with Agent Deck's code, hint (what to do next) and details as extension members; the error member repeats the error object of earlier versions and is deprecated. This document is served without a token.",
		},
		"servers": []any{map[string]any{"url": "http://127.0.0.1:1110",
			"description": "agent-deck serve on its default address; use the address your server runs on (agent-deck status shows it)"}},
		"security": []any{map[string]any{"bearerAuth": []string{}}},
		"paths":    paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{
				"bearerAuth": map[string]any{"type": "http", "scheme": "bearer"},
			},
			"schemas": g.schemas,
		},
	}
}

func (g *schemaGen) operation(r route, errorRef map[string]any) map[string]any {
	op := map[string]any{
		"operationId": r.op,
		"summary":     r.summary,
		"description": routeDescriptions[r.op] + conventionNotes(r),
		"tags":        []string{tagOf(r.path)},
		"responses":   g.responses(r, errorRef),
	}
	if params := parameters(r); len(params) > 0 {
		op["parameters"] = params
	}
	if body := g.requestBody(r); body != nil {
		op["requestBody"] = body
	}
	if r.public {
		op["security"] = []any{}
	}
	if r.scope != "" {
		op["x-agent-deck-scope"] = string(r.scope)
	}
	return op
}

func (g *schemaGen) responses(r route, errorRef map[string]any) map[string]any {
	ok := map[string]any{"description": http.StatusText(r.status)}
	schema := r.responseDoc
	if schema == nil && r.response != nil {
		schema = g.schema(r.response)
	}
	if schema != nil {
		ct := r.contentType
		if ct == "" {
			ct = "application/json"
		}
		ok["content"] = map[string]any{ct: map[string]any{"schema": schema}}
	}
	headers := map[string]any{}
	if r.linkNext {
		headers["Link"] = map[string]any{"description": `RFC 8288: <URL of the next page>; rel="next", absent on the last page`,
			"schema": map[string]any{"type": "string"}}
	}
	if r.conditional {
		headers["ETag"] = etagHeaderDoc
		headers["Cache-Control"] = map[string]any{"description": "private, no-cache: keep the answer, but ask again with If-None-Match",
			"schema": map[string]any{"type": "string"}}
	}
	if len(headers) > 0 {
		ok["headers"] = headers
	}
	out := map[string]any{
		strconv.Itoa(r.status): ok,
		"default": map[string]any{
			"description": "Error; the status comes from the code (400, 401, 403, 404, 409, 503, 504, 500)",
			"content":     map[string]any{problemContentType: map[string]any{"schema": errorRef}},
		},
	}
	if r.conditional {
		out["304"] = map[string]any{"description": "Not Modified: If-None-Match names the current ETag; no body",
			"headers": map[string]any{"ETag": etagHeaderDoc}}
	}
	return out
}

var etagHeaderDoc = map[string]any{"description": "Strong entity tag of the answer's bytes; send it back in If-None-Match",
	"schema": map[string]any{"type": "string"}}

// conventionNotes adds to an operation's description what follows from its row: paging and
// conditional requests.
func conventionNotes(r route) string {
	var notes string
	if r.paged {
		notes += ` Paged: with limit, at most that many items come back, and a Link header with rel="next" gives the URL of the next page while one follows; without limit, the whole list.`
	}
	if r.conditional {
		notes += " Conditional: the answer carries an ETag; a request whose If-None-Match names it is answered 304 Not Modified while nothing changed."
	}
	return notes
}

func (g *schemaGen) requestBody(r route) map[string]any {
	schema := r.requestDoc
	if schema == nil && r.request != nil {
		schema = g.schema(r.request)
	}
	if schema == nil {
		return nil
	}
	return map[string]any{
		"required": true,
		"content":  map[string]any{"application/json": map[string]any{"schema": schema}},
	}
}

func parameters(r route) []any {
	var out []any
	for _, seg := range strings.Split(r.path, "/") {
		name, ok := strings.CutPrefix(seg, ":")
		if !ok {
			continue
		}
		doc, known := pathParamDocs[name]
		if !known {
			panic(fmt.Sprintf("dashboardapi: path parameter %q of %s has no entry in pathParamDocs", name, r.path))
		}
		out = append(out, map[string]any{"name": name, "in": "path", "required": true,
			"description": doc["description"], "schema": doc["schema"]})
	}
	for _, q := range r.query {
		schema := map[string]any{"type": "string"}
		switch {
		case q.boolean:
			schema = map[string]any{"type": "boolean"}
		case q.integer:
			schema = map[string]any{"type": "integer", "minimum": q.min, "maximum": q.max}
		}
		if len(q.enum) > 0 {
			schema["enum"] = q.enum
		}
		out = append(out, map[string]any{"name": q.name, "in": "query", "required": q.required,
			"description": q.description, "schema": schema})
	}
	headers := r.headers
	if r.conditional {
		headers = append(slices.Clip(headers), queryParam{name: "If-None-Match",
			description: "the ETag of an earlier answer: 304 Not Modified, without a body, while it still matches"})
	}
	for _, h := range headers {
		out = append(out, map[string]any{"name": h.name, "in": "header", "required": h.required,
			"description": h.description, "schema": map[string]any{"type": "string"}})
	}
	return out
}

// openAPIPath turns gin's /decks/:deck into OpenAPI's /decks/{deck}.
func openAPIPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if name, ok := strings.CutPrefix(s, ":"); ok {
			segs[i] = "{" + name + "}"
		}
	}
	return strings.Join(segs, "/")
}

// tagOf groups operations by their first segment under /api/v1.
func tagOf(p string) string {
	rest, ok := strings.CutPrefix(p, v1+"/")
	if !ok {
		return "operations"
	}
	first, _, _ := strings.Cut(rest, "/")
	return strings.TrimSuffix(first, ".json")
}

// schemaGen derives JSON Schemas from Go types through jsonFields, registering every named
// struct once under components/schemas.
type schemaGen struct {
	schemas map[string]any
	types   map[string]reflect.Type
}

func (g *schemaGen) schema(t reflect.Type) map[string]any {
	switch {
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t == rawMessageType:
		return map[string]any{"description": "any JSON value"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.schema(t.Elem())
	case reflect.String:
		s := map[string]any{"type": "string"}
		if e, ok := enumValues[t]; ok {
			s["enum"] = e
		}
		return s
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": g.schema(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.schema(t.Elem())}
	case reflect.Struct:
		return g.ref(t)
	default:
		return map[string]any{}
	}
}

// nullable widens the schema of an always-present pointer field to admit null, which is what
// a nil pointer encodes as (enabled_tool_count of a service never reached).
func nullable(schema map[string]any, f field) map[string]any {
	typ, ok := schema["type"].(string)
	if f.typ.Kind() != reflect.Pointer || !f.required || !ok {
		return schema
	}
	out := maps.Clone(schema)
	out["type"] = []string{typ, "null"}
	return out
}

// schemaNames names the schemas of types whose Go name, read without its package, would say
// less than the document's readers were promised.
var schemaNames = map[reflect.Type]string{
	reflect.TypeFor[authserver.Metadata](): "AuthServerMetadata",
}

// ref registers a struct under components/schemas and returns a reference to it.
func (g *schemaGen) ref(t reflect.Type) map[string]any {
	if t.Name() == "" {
		return g.object(t)
	}
	name, ok := schemaNames[t]
	if !ok {
		name = strings.ToUpper(t.Name()[:1]) + t.Name()[1:]
	}
	ref := map[string]any{"$ref": "#/components/schemas/" + name}
	if prev, ok := g.types[name]; ok {
		if prev != t {
			panic(fmt.Sprintf("dashboardapi: two types named %s in the OpenAPI document", name))
		}
		return ref
	}
	g.types[name] = t
	g.schemas[name] = g.object(t)
	return ref
}

// object is the schema of a struct: its JSON fields, the always-present ones required.
func (g *schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, f := range jsonFields(t) {
		props[f.name] = describe(nullable(g.schema(f.typ), f), t, f.name)
		if deprecatedFields[t][f.name] {
			props[f.name].(map[string]any)["deprecated"] = true
		}
		if f.required {
			required = append(required, f.name)
		}
	}
	obj := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		obj["required"] = required
	}
	return obj
}
