package dashboardapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"runtime"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend"
)

// route is one row of the route table: what gin needs to serve it and what the OpenAPI document
// says about it. Both are built from the same row, so they cannot drift apart.
type route struct {
	method  string
	path    string // gin syntax: /api/v1/decks/:deck
	summary string
	op      string // OpenAPI operationId, from the handler's name
	public  bool   // served without a bearer token
	// scope, when set, is the least token scope the route needs; it is checked before the path,
	// query and body are, so a caller without it gets 403 whatever it sent.
	scope  backend.Scope
	status int // success status

	request  reflect.Type // nil: the route takes no body
	response reflect.Type // nil: the route answers with no content
	// requestDoc and responseDoc replace the schemas derived from the Go types, for bodies
	// passed through raw (bundles, downstream results, metrics).
	requestDoc  map[string]any
	responseDoc map[string]any
	contentType string // of the response; JSON unless set

	query    []queryParam
	headers  []queryParam // documented request headers; read by the handler
	paged    bool         // a list paged by limit and cursor (list)
	linkNext bool         // the answer may carry a Link header with rel="next"
	// conditional answers carry an ETag and answer 304 to a matching If-None-Match: the reads
	// the dashboard polls (every list, and the decks, services and proposals it shows).
	conditional bool
	bodyLimit   int64 // 0: Options.MaxBodyBytes

	// invoke runs the handler with the raw body and returns what to render.
	invoke func(c *gin.Context, body []byte) (any, error)
	// serve replaces the JSON adapter entirely (metrics).
	serve gin.HandlerFunc
}

// queryParam declares one accepted query parameter; anything undeclared is refused.
type queryParam struct {
	name        string
	description string
	required    bool
	boolean     bool     // "true" or "false"
	enum        []string // accepted values, when closed
	// integer, when set, makes the parameter a whole number from min to max (both included).
	integer  bool
	min, max int
}

// intParam declares a whole-number query parameter and its bounds.
func intParam(name, description string, min, max int) queryParam {
	return queryParam{name: name, description: description, integer: true, min: min, max: max}
}

// noBody declares a route without a request body that answers 200 with Out.
func noBody[Out any](method, path, summary string, fn func(*gin.Context) (Out, error)) route {
	return route{
		method: method, path: path, summary: summary, op: handlerName(fn),
		status: http.StatusOK, response: reflect.TypeFor[Out](),
		invoke: func(c *gin.Context, _ []byte) (any, error) { return fn(c) },
	}
}

// withBody declares a route that decodes a JSON body into In strictly and answers status
// with Out.
func withBody[In, Out any](method, path, summary string, status int,
	fn func(*gin.Context, In) (Out, error)) route {
	return route{
		method: method, path: path, summary: summary, op: handlerName(fn),
		status: status, request: reflect.TypeFor[In](), response: reflect.TypeFor[Out](),
		invoke: func(c *gin.Context, body []byte) (any, error) {
			var in In
			if err := decodeBody(body, &in); err != nil {
				return nil, err
			}
			return fn(c, in)
		},
	}
}

// noContent declares a route without a body that answers 204.
func noContent(method, path, summary string, fn func(*gin.Context) error) route {
	return route{
		method: method, path: path, summary: summary, op: handlerName(fn),
		status: http.StatusNoContent,
		invoke: func(c *gin.Context, _ []byte) (any, error) { return nil, fn(c) },
	}
}

// bodyNoContent declares a route that decodes a JSON body into In and answers 204.
func bodyNoContent[In any](method, path, summary string, fn func(*gin.Context, In) error) route {
	return route{
		method: method, path: path, summary: summary, op: handlerName(fn),
		status: http.StatusNoContent, request: reflect.TypeFor[In](),
		invoke: func(c *gin.Context, body []byte) (any, error) {
			var in In
			if err := decodeBody(body, &in); err != nil {
				return nil, err
			}
			return nil, fn(c, in)
		},
	}
}

// adminOnly marks a route that only admin tokens may call.
func (r route) adminOnly() route { r.scope = backend.ScopeAdmin; return r }

// action completes "scope X may not …" (backend.Refuse) for a route: calling it, by method and
// path. A summary reads as a description ("A one-time dashboard sign-in code"), not as a verb.
func (r route) action() string {
	return "call " + r.method + " " + openAPIPath(r.path)
}

// withLinkNext documents the Link rel="next" header a route with pages of its own sends.
func (r route) withLinkNext() route { r.linkNext = true; return r }

// withETag makes a read conditional: an ETag on its answer, 304 for a matching If-None-Match.
func (r route) withETag() route { r.conditional = true; return r }

// withPublic marks a route as served without a token.
func (r route) withPublic() route { r.public = true; return r }

// withQuery declares the route's query parameters (beside a list's limit and cursor).
func (r route) withQuery(q ...queryParam) route {
	r.query = append(append([]queryParam(nil), r.query...), q...)
	return r
}

// withHeaders documents request headers the handler reads.
func (r route) withHeaders(h ...queryParam) route { r.headers = h; return r }

// withLimit overrides the body size limit.
func (r route) withLimit(n int64) route { r.bodyLimit = n; return r }

// withDocs overrides the derived request and response schemas (nil keeps the derived one).
func (r route) withDocs(request, response map[string]any) route {
	r.requestDoc, r.responseDoc = request, response
	return r
}

// handlerName turns a method value such as (*api).listDecks-fm into "listDecks".
func handlerName(fn any) string {
	name := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
	name = strings.TrimSuffix(name, "-fm")
	if i := strings.LastIndex(name, "."); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// adapt turns a route row into its gin handler: query and path checks, the body under its
// limit, the handler, and the response.
func (a *api) adapt(r route) gin.HandlerFunc {
	if r.serve != nil {
		return a.guard(r)
	}
	limit := r.bodyLimit
	if limit <= 0 {
		limit = a.opts.MaxBodyBytes
	}
	return func(c *gin.Context) {
		if r.scope != "" {
			if err := backend.Authorize(c.Request.Context(), r.scope, r.action()); err != nil {
				a.writeError(c, err)
				return
			}
		}
		if err := checkPathParams(c); err != nil {
			a.writeError(c, err)
			return
		}
		if err := checkQuery(c, r.query); err != nil {
			a.writeError(c, err)
			return
		}
		body, err := readBody(c, limit, r.request != nil)
		if err != nil {
			a.writeError(c, err)
			return
		}
		out, err := r.invoke(c, body)
		if err != nil {
			a.writeError(c, err)
			return
		}
		a.render(c, r, out)
	}
}

// guard runs a route that serves itself (metrics, profiles) after its scope check.
func (a *api) guard(r route) gin.HandlerFunc {
	if r.scope == "" {
		return r.serve
	}
	return func(c *gin.Context) {
		if err := backend.Authorize(c.Request.Context(), r.scope, r.action()); err != nil {
			a.writeError(c, err)
			return
		}
		r.serve(c)
	}
}

// render writes a handler's result: nothing for 204, raw JSON as is, anything else encoded,
// with a nil list shown as [] rather than null; a conditional read through sendConditional.
func (a *api) render(c *gin.Context, r route, out any) {
	if r.response == nil {
		c.Status(r.status)
		return
	}
	body, err := encodeResult(out)
	if err != nil {
		a.writeError(c, internalEncoding(err))
		return
	}
	if r.conditional && r.status == http.StatusOK {
		sendConditional(c, r.status, jsonContentType, body)
		return
	}
	c.Data(r.status, jsonContentType, body)
}

func encodeResult(out any) ([]byte, error) {
	if raw, ok := out.(json.RawMessage); ok {
		if len(bytes.TrimSpace(raw)) == 0 {
			return []byte("null"), nil
		}
		return raw, nil
	}
	if v := reflect.ValueOf(out); v.Kind() == reflect.Slice && v.IsNil() {
		return []byte("[]"), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
