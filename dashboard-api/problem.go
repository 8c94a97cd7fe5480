package dashboardapi

import (
	"fmt"

	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend"
)

const problemContentType = "application/problem+json"

// problemsPath is where each problem type is described: a problem's type is this path and its
// code, a URI reference the client resolves against the server it asked.
const problemsPath = v1 + "/problems/"

// Problem is the body of every failed request: an RFC 9457 problem document. type, title,
// status, detail and instance are the standard members; code, hint and details are Agent Deck's
// extension members, and error repeats the body this API answered before problem documents.
type Problem struct {
	Type     string         `json:"type"`
	Title    string         `json:"title"`
	Status   int            `json:"status"`
	Detail   string         `json:"detail"`
	Instance string         `json:"instance"`
	Code     backend.Code   `json:"code"`
	Hint     string         `json:"hint,omitempty"`
	Details  map[string]any `json:"details"`
	// Error is deprecated: the error object clients read before problem documents, kept so they
	// keep working. It will be removed; read code, detail, hint and details instead.
	Error ErrorBody `json:"error"`
}

// ErrorBody is the deprecated error object of a Problem: the code, the message (the problem's
// detail) and the details with the hint among them.
type ErrorBody struct {
	Code    backend.Code   `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

// problemFor renders the public form of an error (backend.Public decides it) as the problem of
// the request at instance; status is the one the answer goes out with.
func problemFor(p backend.PublicError, status int, instance string) Problem {
	details := map[string]any{}
	legacy := map[string]any{}
	for k, v := range p.Details {
		details[k] = v
		legacy[k] = v
	}
	if p.Hint != "" {
		legacy["hint"] = p.Hint
	}
	return Problem{
		Type: problemsPath + string(p.Code), Title: problemTitle(p.Code), Status: status,
		Detail: p.Message, Instance: instance, Code: p.Code, Hint: p.Hint, Details: details,
		Error: ErrorBody{Code: p.Code, Message: p.Message, Details: legacy},
	}
}

// writeProblem sends a problem document.
func writeProblem(c *gin.Context, pr Problem) {
	c.Data(pr.Status, problemContentType, mustJSON(pr))
}

// ProblemType describes one problem type: what GET on a problem's type answers.
type ProblemType struct {
	Type        string       `json:"type"`
	Title       string       `json:"title"`
	Status      int          `json:"status"`
	Code        backend.Code `json:"code"`
	Description string       `json:"description"`
}

// problemTypes titles and explains each code as a problem type. A title stays the same for every
// occurrence (RFC 9457 §3.1.3); the occurrence's own text is the problem's detail.
// TestEveryCodeIsAProblemType fails on a code without a row.
var problemTypes = map[backend.Code]struct{ title, description string }{
	backend.CodeNotBound: {"Not bound to a deck",
		"The MCP session has no deck yet. Bind one (bind_deck, or bind_workspace where the profile has it) and try again."},
	backend.CodeNotFound: {"Not found",
		"Nothing has the id or name given. The message names what was looked for and, when one is close, what was meant."},
	backend.CodeNotOnBoundDeck: {"Not on the bound deck",
		"The card exists but the session's deck does not link it. Link it to the deck, or bind a deck that has it."},
	backend.CodeInvalidArgument: {"Invalid argument",
		"The request is malformed or a value is out of range: details.field names the field and the hint what it accepts. A method the path does not take is answered with status 405 and this type."},
	backend.CodeConflict: {"Conflict",
		"The request clashes with the current state: a name already taken, or a change that no longer applies."},
	backend.CodePlaybookDependency: {"A playbook depends on it",
		"The card cannot be deleted or unlinked while playbooks depend on it; details.dependents lists them."},
	backend.CodeUnauthenticated: {"Not authenticated",
		"No valid token or dashboard session came with the request. Send Authorization: Bearer <token>."},
	backend.CodeForbidden: {"Forbidden",
		"The token's scope does not allow this; the message says which scope may."},
	backend.CodeToolDisabled: {"Tool disabled",
		"The downstream tool is disabled for the service or hidden by the deck's rules."},
	backend.CodeToolChanged: {"Tool changed since it was approved",
		"The downstream server changed the tool's definition; an admin approves the new one before calls go through again."},
	backend.CodeDownstreamUnreachable: {"Downstream server unreachable",
		"Agent Deck could not reach the service's MCP server, or start its local command."},
	backend.CodeDownstreamAuth: {"Downstream server refused the credentials",
		"The service's MCP server refused Agent Deck's credentials or needs a sign-in; the hint says which."},
	backend.CodeDownstreamTimeout: {"Downstream server timed out",
		"The service's MCP server did not answer within its timeout."},
	backend.CodeDownstreamError: {"Downstream server failed",
		"The service's MCP server answered with an error of its own."},
	backend.CodeUnavailable: {"Unavailable",
		"Agent Deck cannot serve the request now (the database is down or restarting, or stored secrets cannot be read); retry later."},
	backend.CodeInternal: {"Internal error",
		"Something failed inside Agent Deck. The request id in details lets the operator find the cause in the log."},
	backend.CodeCanceled: {"Request cancelled",
		"The client went away before the answer was ready; nobody reads this answer."},
	backend.CodeDownstreamResultTooLarge: {"Downstream result too large",
		"The service's result was larger than the server's hard cap and was cut off as it arrived."},
	backend.CodePatchConflict: {"Patch does not apply",
		"A playbook change names a section or item the playbook does not have; the message lists what it has."},
	backend.CodePatchNoChange: {"Patch changes nothing",
		"The playbook change would leave the playbook as it is."},
	backend.CodeRateLimited: {"Rate limited",
		"A limit on calls per minute or on calls in flight (of the token, or of the service through the deck) was reached; the hint and the Retry-After header say when to retry, and nothing was spent."},
	backend.CodeLimitReached: {"Limit reached",
		"The write would pass a standing bound (open proposals or signals of one token); the message names the bound. Close or let a person review some first."},
	backend.CodeCredentialMissing: {"Your own credential is missing",
		"The service takes each person's own secret (or sign-in) and the calling person has not set theirs; nobody else's is ever sent. The hint names the command that sets it."},
}

// problemTitle is the title of a code's problem type; a code outside the table (a newer server's)
// is answered as internal by backend.Public, so it never reaches here without a row.
func problemTitle(code backend.Code) string {
	if t, ok := problemTypes[code]; ok {
		return t.title
	}
	return string(code)
}

// problemType answers GET /api/v1/problems/{code}: the documentation a problem's type points to.
func (a *api) problemType(c *gin.Context) (ProblemType, error) {
	code := backend.Code(c.Param("code"))
	t, ok := problemTypes[code]
	status, known := backend.HTTPStatus(code)
	if !ok || !known {
		return ProblemType{}, backend.Errorf(backend.CodeNotFound, "no problem type %q", clipText(string(code), 60)).
			WithDetail("accepted", codeNames()).WithHint(fmt.Sprintf("a problem type is one of the %d error codes", len(backend.AllCodes)))
	}
	return ProblemType{Type: problemsPath + string(code), Title: t.title, Status: status, Code: code,
		Description: t.description}, nil
}
