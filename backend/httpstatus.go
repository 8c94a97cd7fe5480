package backend

import "net/http"

// httpStatusByCode is the one place a code becomes an HTTP status, for both HTTP front ends
// (the REST API and the MCP endpoint's answers before the MCP transport takes over).
//
// NOT_BOUND and NOT_ON_BOUND_DECK come from the agent-session use cases; a REST caller meets them
// only when a shared Service method refuses because of session state, which is a conflict with
// the current state rather than a malformed request, hence 409. Downstream failures are 503
// (the deck is fine, what it fronts is not), except a downstream timeout, which is 504, and a
// result over the hard cap, which is 502. A held tool (TOOL_CHANGED) is a conflict with the
// approved definition, like a disabled one.
func httpStatusByCode() map[Code]int {
	return map[Code]int{
		CodeInvalidArgument:       http.StatusBadRequest,
		CodeUnauthenticated:       http.StatusUnauthorized,
		CodeForbidden:             http.StatusForbidden,
		CodeNotFound:              http.StatusNotFound,
		CodeNotBound:              http.StatusConflict,
		CodeNotOnBoundDeck:        http.StatusConflict,
		CodeConflict:              http.StatusConflict,
		CodePlaybookDependency:    http.StatusConflict,
		CodeToolDisabled:          http.StatusConflict,
		CodeToolChanged:           http.StatusConflict,
		CodeDownstreamUnreachable: http.StatusServiceUnavailable,
		CodeDownstreamAuth:        http.StatusServiceUnavailable,
		CodeDownstreamError:       http.StatusServiceUnavailable,
		CodeDownstreamTimeout:     http.StatusGatewayTimeout,
		CodeUnavailable:           http.StatusServiceUnavailable,
		CodeInternal:              http.StatusInternalServerError,
		CodeCanceled:              StatusClientClosedRequest,

		// The downstream answered, with more than the deck accepts: a bad gateway response.
		CodeDownstreamResultTooLarge: http.StatusBadGateway,
	}
}

// StatusClientClosedRequest is the status recorded (in logs and metrics) for a request its client
// cancelled: a 4xx, so it is never counted as a server failure. The number is the one nginx
// made customary.
const StatusClientClosedRequest = 499

// HTTPStatus returns the HTTP status of a code; known is false for a code outside the closed
// set, which is answered as an internal error.
func HTTPStatus(code Code) (status int, known bool) {
	if s, ok := httpStatusByCode()[code]; ok {
		return s, true
	}
	return http.StatusInternalServerError, false
}
