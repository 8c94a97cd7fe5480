package backend

import (
	"context"
	"net/http"
	"slices"
)

// codeRule is what a front end needs to know about a code: its HTTP status (the CLI's exit code
// follows from it) and whether a client may see the error as classified.
type codeRule struct {
	code   Code
	status int
	// hidden errors reach a client as a generic message with a request id; their message, hint
	// and details stay in the log with the cause.
	hidden bool
}

// codeTable is the one place a code becomes an HTTP status and a visibility, for every front
// end: the REST API, the MCP endpoint (its answers before the transport and its tool errors)
// and the CLI. Adding a code is one row here.
//
// NOT_BOUND and NOT_ON_BOUND_DECK come from the agent-session use cases; a REST caller meets them
// only when a shared Service method refuses because of session state, which is a conflict with
// the current state rather than a malformed request, hence 409. A held tool (TOOL_CHANGED) is a
// conflict with the approved definition, like a disabled one. Downstream failures are 503 (the
// deck is fine, what it fronts is not), except a downstream timeout, which is 504, and a result
// over the hard cap, which is 502 (the downstream answered, with more than the deck accepts). A
// call over a rate limit is 429 (REST adds Retry-After); a write past a standing bound (open
// proposals of a token) is a conflict with the current state, which a person's review ends. A
// request its client cancelled is recorded as 499, so it never counts as a server failure.
// UNAVAILABLE (the database is down or restarting, stored secrets unreadable) stays visible with
// its hint: the caller can do something about it, and its cause never leaves the log anyway.
var codeTable = []codeRule{
	{CodeNotBound, http.StatusConflict, false},
	{CodeNotFound, http.StatusNotFound, false},
	{CodeNotOnBoundDeck, http.StatusConflict, false},
	{CodeInvalidArgument, http.StatusBadRequest, false},
	{CodeConflict, http.StatusConflict, false},
	{CodePlaybookDependency, http.StatusConflict, false},
	{CodeUnauthenticated, http.StatusUnauthorized, false},
	{CodeForbidden, http.StatusForbidden, false},
	{CodeToolDisabled, http.StatusConflict, false},
	{CodeToolChanged, http.StatusConflict, false},
	{CodeDownstreamUnreachable, http.StatusServiceUnavailable, false},
	{CodeDownstreamAuth, http.StatusServiceUnavailable, false},
	{CodeDownstreamTimeout, http.StatusGatewayTimeout, false},
	{CodeDownstreamError, http.StatusServiceUnavailable, false},
	{CodeUnavailable, http.StatusServiceUnavailable, false},
	{CodeInternal, http.StatusInternalServerError, true},
	{CodeCanceled, StatusClientClosedRequest, false},
	{CodeDownstreamResultTooLarge, http.StatusBadGateway, false},
	{CodePatchConflict, http.StatusConflict, false},
	{CodePatchNoChange, http.StatusConflict, false},
	{CodeCredentialMissing, http.StatusConflict, false},
	{CodeRateLimited, http.StatusTooManyRequests, false},
	{CodeLimitReached, http.StatusConflict, false},
}

// StatusClientClosedRequest is the status recorded (in logs and metrics) for a request its client
// cancelled: a 4xx, so it is never counted as a server failure. The number is the one nginx
// made customary.
const StatusClientClosedRequest = 499

// AllCodes lists every code, in the order of codeTable; tests use it to prove each front end
// renders all of them.
var AllCodes = func() []Code {
	out := make([]Code, len(codeTable))
	for i, r := range codeTable {
		out[i] = r.code
	}
	return out
}()

func ruleOf(code Code) (codeRule, bool) {
	i := slices.IndexFunc(codeTable, func(r codeRule) bool { return r.code == code })
	if i < 0 {
		return codeRule{code: CodeInternal, status: http.StatusInternalServerError, hidden: true}, false
	}
	return codeTable[i], true
}

// HTTPStatus returns the HTTP status of a code; known is false for a code outside the closed
// set, which is answered as an internal error.
func HTTPStatus(code Code) (status int, known bool) {
	r, known := ruleOf(code)
	return r.status, known
}

// PublicError is everything a client — a person, a script or a model — may see of a failure.
// REST, MCP and the CLI render it; none of them decides what to show.
type PublicError struct {
	Code    Code
	Message string
	Hint    string
	// Details are the structured facts of the error (field, accepted values, dependents); for
	// a hidden error only the request id.
	Details map[string]any
	// Status is the HTTP status of the code.
	Status int
}

// Public decides the public form of err. Hidden codes (INTERNAL, and any code outside the
// closed set) become a generic message that carries requestID, so the log line with the cause
// can be found; every other code keeps its classified message, hint and details. The cause
// (Error.Err) never appears.
func Public(err error, requestID string) PublicError {
	e := AsError(err)
	r, _ := ruleOf(e.Code)
	if r.hidden {
		p := PublicError{Code: CodeInternal, Message: "internal error", Status: r.status}
		if requestID != "" {
			p.Message += " (request id " + requestID + ")"
			p.Hint = "retry; if it keeps failing, report request id " + requestID + " to the deck's operator"
			p.Details = map[string]any{"request_id": requestID}
		}
		return p
	}
	details := make(map[string]any, len(e.Details))
	for k, v := range e.Details {
		details[k] = v
	}
	return PublicError{Code: e.Code, Message: e.Message, Hint: e.Hint, Details: details, Status: r.status}
}

// PublicFor is Public for the caller in ctx: an agent's accepted-values hint names the tool of
// its own session that lists what a field accepts (ToolFor), a person's the REST route.
func PublicFor(ctx context.Context, err error, requestID string) PublicError {
	p := Public(err, requestID)
	if e := AsError(err); e.accepted != nil && p.Code == e.Code {
		p.Hint = acceptedHint(e.accepted.field, e.accepted.rule, func(l fieldLister) string {
			return InWordsOf(ctx, l.route, ToolFor(ctx, l.tool))
		})
	}
	return p
}

// fieldAccepts says, per input field, what a valid value looks like. invalid() puts it in the
// hint of every INVALID_ARGUMENT it builds, so a caller who got a field wrong learns what the
// field takes without reading the docs. Fields are named as callers spell them (REST and MCP).
var fieldAccepts = map[string]string{
	"action":                    "one of the actions listed in the message",
	"allow_tools":               "a list of the service's tool names, the only ones the deck exposes",
	"audit_id":                  "the positive id of an exec audit row, as `agent-deck exec` printed it",
	"body":                      "markdown text, up to 256 KiB, without control characters other than newlines and tabs",
	"card_id":                   "the id or the name (label, title) of a card",
	"card_type":                 "service, credential or playbook",
	"command":                   "the command to run and its arguments, as a non-empty list of strings",
	"credential_id":             "a credential id (cred_…) or label; `agent-deck credential list` shows them",
	"credential_ids":            "one or more credential ids (cred_…) or labels, each with a secret set",
	"deck":                      "a deck id or exact name",
	"deckId":                    "a deck id or exact name",
	"depends_on_credential_ids": "a list of credential ids (cred_…) or labels, at most 64",
	"depends_on_service_ids":    "a list of service ids or names, at most 64",
	"deny_tools":                "a list of the service's tool names the deck hides",
	"description":               "plain text, up to 2000 characters",
	"disabled_tools":            "a list of the service's tool names",
	"docs_url":                  "an http:// or https:// URL, or empty",
	"env_name":                  "an environment variable name: capital letters, digits and _, not starting with a digit",
	"exec":                      "a command line of at most 4000 characters, or empty",
	"exit_code":                 "the command's exit status as an integer",
	"header_name":               "an HTTP header name (letters, digits and -), required with scheme header",
	"headers":                   "an object of HTTP header names to string values",
	"id":                        "an id in the form the message shows, or leave it out to derive one",
	"label":                     "a non-empty name of at most 100 characters, unique among credentials",
	"local_args":                "a list of argument strings for local_command",
	"local_command":             "the program to start for a local-mcp service (a name on PATH or an absolute path)",
	"local_env":                 "an object of environment variable names to string values",
	"local_working_dir":         "an absolute directory path, or empty",
	"name":                      "a non-empty name of at most 100 characters, without control characters",
	"ordered_card_ids":          "every card of that type on the deck, each exactly once, in the new order",
	"playbook_id":               "a playbook id (pb_…) or title",
	"position":                  "a 0-based index: 0 puts the card first; leave it out to put the card last",
	"profile":                   "runtime, standard, resource or legacy",
	"scheme":                    "bearer, header or http_basic_user",
	"scope":                     "admin, agent or agent:read",
	"service_id":                "a service id or name",
	"skill":                     "a skill name of at most 200 characters, or empty",
	"tags":                      "a list of short tags (at most 32, each at most 40 characters)",
	"timeout_seconds":           "a whole number of seconds from 1 to 600",
	"title":                     "a non-empty title of at most 100 characters, unique among playbooks",
	"tool_name":                 "the name of one of the service's tools",
	"tools":                     "a list of the service's tool names",
	"transport":                 "auto, streamable_http or sse",
	"triggers":                  "a list of at most 16 phrases, each at most 80 characters",
	"type":                      "mcp (a remote server at url) or local-mcp (a command started locally)",
	"url":                       "an http:// or https:// URL of the MCP server (required for type mcp)",
	"value":                     "the secret as one line of UTF-8 text, at most 8 KiB",
	"version":                   "a version number (1 or more); the playbook's versions list shows them",
	"workspaceRoot":             "the absolute path of the project folder, e.g. /home/me/project",
}

// fieldListers name, per field, where a caller finds the values it accepts: an agent's tool
// (canonical, rendered in the session's words) or a person's REST route.
var fieldListers = map[string]fieldLister{
	"allow_tools":    {"list_service_tools", "GET /api/v1/services/{service}/tools"},
	"card_id":        {"list_collection", "GET /api/v1/services, /credentials or /playbooks"},
	"deck":           {"get_decks", "GET /api/v1/decks"},
	"deckId":         {"get_decks", "GET /api/v1/decks"},
	"deny_tools":     {"list_service_tools", "GET /api/v1/services/{service}/tools"},
	"disabled_tools": {"list_service_tools", "GET /api/v1/services/{service}/tools"},
	"service_id":     {"list_collection", "GET /api/v1/services"},
	"tool_name":      {"list_service_tools", "GET /api/v1/services/{service}/tools"},
}

type fieldLister struct{ tool, route string }

// peopleLister is where a person (REST, the CLI) finds a field's accepted values: the route.
func peopleLister(l fieldLister) string { return l.route }

// acceptedHint is the hint of an INVALID_ARGUMENT about field: what the field accepts, and where
// the caller finds the accepted values (where renders the lister in the caller's words; "" when
// the caller has none).
func acceptedHint(field, rule string, where func(fieldLister) string) string {
	a, ok := fieldAccepts[field]
	if !ok {
		return "send " + field + " again: it " + rule
	}
	hint := field + " accepts " + a
	l, ok := fieldListers[field]
	if !ok {
		return hint
	}
	if w := where(l); w != "" {
		return hint + "; " + w + " lists them"
	}
	return hint
}
