package backend

import (
	"errors"
	"fmt"
)

// Code classifies every failure once, so each front end (HTTP status table, MCP error result,
// CLI exit code) can map it without looking at error text.
type Code string

// The error codes of SPEC §4.3. The list is closed: each code has one row in codeTable
// (errors_public.go), which is all a new code needs besides its name.
const (
	CodeNotBound              Code = "NOT_BOUND"
	CodeNotFound              Code = "NOT_FOUND"
	CodeNotOnBoundDeck        Code = "NOT_ON_BOUND_DECK"
	CodeInvalidArgument       Code = "INVALID_ARGUMENT"
	CodeConflict              Code = "CONFLICT"
	CodePlaybookDependency    Code = "PLAYBOOK_DEPENDENCY"
	CodeUnauthenticated       Code = "UNAUTHENTICATED"
	CodeForbidden             Code = "FORBIDDEN"
	CodeToolDisabled          Code = "TOOL_DISABLED"
	CodeToolChanged           Code = "TOOL_CHANGED"
	CodeDownstreamUnreachable Code = "DOWNSTREAM_UNREACHABLE"
	CodeDownstreamAuth        Code = "DOWNSTREAM_AUTH"
	CodeDownstreamTimeout     Code = "DOWNSTREAM_TIMEOUT"
	CodeDownstreamError       Code = "DOWNSTREAM_ERROR"
	CodeUnavailable           Code = "UNAVAILABLE"
	CodeInternal              Code = "INTERNAL"
	// CodeCanceled means the caller went away (it cancelled its request) before the answer was
	// ready. Nobody reads the answer; it is kept apart so a cancel is never counted or logged as
	// an outage.
	CodeCanceled Code = "CANCELED"

	// CodeDownstreamResultTooLarge is a result over the hard cap, aborted as it arrived.
	CodeDownstreamResultTooLarge Code = "DOWNSTREAM_RESULT_TOO_LARGE"

	// CodePatchConflict is a playbook proposal whose ops do not apply to the body: a section
	// or list item they name is not there. The message lists what is.
	CodePatchConflict Code = "PATCH_CONFLICT"
	// CodePatchNoChange is a playbook proposal whose ops would leave the playbook as it is.
	CodePatchNoChange Code = "PATCH_NO_CHANGE"

	// CodeCredentialMissing is a call to a service that takes each person's own secret, by a
	// person who has not set theirs: never anyone else's is sent. The hint names the command.
	CodeCredentialMissing Code = "CREDENTIAL_MISSING"
	// CodeRateLimited is a call over a rate limit (calls per minute or calls in flight, of a
	// token or of a service on a deck). The message names the limit, the hint when to retry;
	// details carry limit and retry_after_seconds.
	CodeRateLimited Code = "RATE_LIMITED"
	// CodeLimitReached is a write that would pass a standing bound (open proposals or signals
	// of a token); the message names the limit, the hint what frees room.
	CodeLimitReached Code = "LIMIT_REACHED"
)

// DetailRetryAfter is the detail of a RATE_LIMITED error giving the whole seconds to wait
// before retrying; REST sends it as Retry-After too.
const DetailRetryAfter = "retry_after_seconds"

// Error is a classified failure whose Message and Hint are safe to show to a person or a model.
// Details carries structured facts (field names, dependent playbooks, service ids) that front ends
// pass on; it never holds secret values or internal error text.
type Error struct {
	Code    Code
	Message string
	Hint    string
	Details map[string]any
	// Err is the underlying cause, for logs only; it never reaches a client.
	Err error
	// accepted is the field and rule of an INVALID_ARGUMENT whose hint is still the field's
	// accepted-values hint, which PublicFor renders again in an agent's words.
	accepted *acceptedField
}

type acceptedField struct{ field, rule string }

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf builds a classified error with a client-safe message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithHint returns e with a hint telling the caller what to do next.
func (e *Error) WithHint(hint string) *Error {
	e.Hint, e.accepted = hint, nil
	return e
}

// WithDetail returns e with one structured detail added.
func (e *Error) WithDetail(key string, value any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = value
	return e
}

// Internal wraps an unexpected failure. Its message is generic; the cause is kept for logs.
func Internal(op string, err error) *Error {
	return &Error{Code: CodeInternal, Message: "internal error during " + op, Err: err}
}

// Canceled classifies a failure caused by the caller cancelling its request.
func Canceled(err error) *Error {
	return &Error{Code: CodeCanceled, Message: "the request was canceled by the caller", Err: err}
}

// ErrorCode returns the code of err, INTERNAL for unclassified errors, "" for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// AsError returns err as a classified *Error, wrapping unclassified errors as INTERNAL.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Internal("request", err)
}
