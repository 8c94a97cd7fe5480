package backend

import (
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
