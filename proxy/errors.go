package proxy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os/exec"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/mark3labs/mcp-go/client/transport"
)

// phase says where a downstream failure happened; it travels in error details so a person can
// tell a server that cannot be reached from one that fails a call.
type phase string

const (
	phaseConnect phase = "connect"
	phaseList    phase = "list"
	phaseCall    phase = "call"
)

// rpcError is a JSON-RPC error object answered by the downstream: the server is alive and
// said no.
type rpcError struct {
	code    int
	message string
}

func (e *rpcError) Error() string { return fmt.Sprintf("downstream error %d: %s", e.code, e.message) }

// httpStatusError is a request the downstream answered with a non-success HTTP status.
type httpStatusError struct {
	status int
	err    error
	// wantScope is the scope a 403 insufficient_scope challenge asked for.
	wantScope string
}

func (e *httpStatusError) Error() string { return fmt.Sprintf("HTTP %d: %v", e.status, e.err) }
func (e *httpStatusError) Unwrap() error { return e.err }

// exitedError is a local server that is no longer running.
type exitedError struct{ state string }

func (e *exitedError) Error() string { return "local server stopped: " + e.state }

// errConnectTimeout marks a connection attempt that ran out of its connect timeout.
var errConnectTimeout = errors.New("connect timed out")

// errCallTimeout marks a request that ran out of the service's own timeout, as opposed to the
// caller giving up: only the first says something about the service's health.
var errCallTimeout = errors.New("call timed out")

// errWrongID is an answer whose JSON-RPC id is not the request's: the server is confused or
// something between it and Agent Deck forged it, and it answers nothing that was asked.
var errWrongID = errors.New("answer with another request's id")

// errClosed is returned once the proxy is shutting down.
var errClosed = errors.New("proxy closed")

// backoffError is a restart refused because the last ones failed too recently.
type backoffError struct {
	wait time.Duration
	last error
}

func (e *backoffError) Error() string {
	return fmt.Sprintf("restart backoff %s after: %v", e.wait, e.last)
}
func (e *backoffError) Unwrap() error { return e.last }

// classify turns any failure reaching the service id (named name) into a classified error
// whose message and hint are safe to show; the cause stays in Err for logs.
func classify(id, name string, err error, ph phase, timeout time.Duration) *backend.Error {
	var be *backend.Error
	if errors.As(err, &be) {
		return be
	}
	if refused, ok := refusedDial(err); ok { // the service's host policy said no: nothing was sent
		refused.Message = name + ": " + refused.Message
		return refused.WithDetail("service_id", id).WithDetail("service_name", name).WithDetail("phase", string(ph))
	}
	e := describe(name, err, ph, timeout)
	e.Err = err
	return e.WithDetail("service_id", id).
		WithDetail("service_name", name).
		WithDetail("phase", string(ph))
}

func describe(name string, err error, ph phase, timeout time.Duration) *backend.Error {
	var (
		rpc    *rpcError
		status *httpStatusError
		exited *exitedError
		back   *backoffError
		execE  *exec.Error
		pathE  *fs.PathError
	)
	switch {
	case errors.Is(err, errClosed):
		return backend.Errorf(backend.CodeDownstreamUnreachable, "Agent Deck is shutting down; %s cannot be reached", name)
	case errors.As(err, &back):
		return backend.Errorf(backend.CodeDownstreamUnreachable,
			"%s failed repeatedly and is not retried for another %s", name, back.wait.Round(time.Millisecond)).
			WithHint("check the service's health (stderr, last error); POST /api/v1/services/{id}/check retries at once")
	case errors.Is(err, errResultTooLarge):
		return backend.Errorf(backend.CodeDownstreamResultTooLarge, "%s returned a result over the hard cap; it was discarded", name).
			WithHint("ask for less (a narrower query, paging, a filter); an admin can raise --result-hard-cap")
	case errors.Is(err, errResultMemoryFull):
		return backend.Errorf(backend.CodeUnavailable, "the answer of %s waited for memory until the call's time ran out: "+
			"the results of other calls held all of the result budget", name).
			WithHint("retry when fewer large results are in flight; an admin can raise --result-memory, or the service's timeout_seconds")
	case errors.Is(err, errConnectTimeout):
		return backend.Errorf(backend.CodeDownstreamTimeout, "%s did not finish connecting in time", name).
			WithHint("check that the server is running and answers MCP at the configured URL or command")
	case errors.Is(err, context.DeadlineExceeded):
		return backend.Errorf(backend.CodeDownstreamTimeout, "%s did not answer within %s (%s)", name, timeout, ph).
			WithHint("retry, or raise the service's timeout_seconds if the tool is slow by nature")
	case errors.Is(err, context.Canceled):
		return backend.Errorf(backend.CodeDownstreamTimeout, "the request to %s was cancelled", name)
	case errors.As(err, &status) && status.wantScope != "":
		return backend.Errorf(backend.CodeDownstreamAuth, "%s needs a sign-in with more scope (HTTP 403 insufficient_scope)", name).
			WithDetail(backend.DetailRequiredScope, status.wantScope).WithHint(backend.ConnectHint(name))
	case oauthChallenged(err):
		return backend.Errorf(backend.CodeDownstreamAuth, "%s needs a person to sign in%s", name, statusSuffix(err)).
			WithHint(backend.ConnectHint(name))
	case isAuthFailure(err):
		return backend.Errorf(backend.CodeDownstreamAuth, "%s rejected the credentials%s", name, statusSuffix(err)).
			WithHint("check the credential linked to the service (rotate its secret) and the service's headers")
	case errors.Is(err, errWrongID):
		return backend.Errorf(backend.CodeDownstreamError, "%s answered with the JSON-RPC id of another request; the answer was refused", name).
			WithHint("the server, or a proxy in front of it, mixes up answers; check it before retrying")
	case errors.As(err, &rpc):
		return backend.Errorf(backend.CodeDownstreamError, "%s returned an error: %s", name, truncate(rpc.message, 300)).
			WithDetail("downstream_code", rpc.code).
			WithHint("read the message; the service's tool list shows the tool's parameters")
	case errors.As(err, &status):
		return backend.Errorf(backend.CodeDownstreamError, "%s answered HTTP %d", name, status.status).
			WithDetail("http_status", status.status).
			WithHint("the server is reachable but failed the request; check its logs")
	case errors.As(err, &exited):
		return backend.Errorf(backend.CodeDownstreamUnreachable, "the local server of %s stopped (%s)", name, exited.state).
			WithHint("it is started again on the next call; the service's health shows its last stderr lines")
	case errors.As(err, &execE):
		return backend.Errorf(backend.CodeDownstreamUnreachable, "the command of %s could not be started", name).
			WithHint("check local_command (an absolute path, or a name on PATH) and local_working_dir")
	case ph == phaseConnect && errors.As(err, &pathE) && pathE.Op != "write" && pathE.Op != "read" && pathE.Op != "close":
		// A start failure (fork/exec, chdir); a broken pipe to a child that already exited is not one.
		return backend.Errorf(backend.CodeDownstreamUnreachable, "the command or working directory of %s could not be used", name).
			WithHint("check local_command and local_working_dir: both must exist and be accessible")
	}
	if ph == phaseConnect {
		return backend.Errorf(backend.CodeDownstreamUnreachable, "could not connect to %s", name).
			WithHint("check that the server is running and that the service's URL, transport or command are right")
	}
	return backend.Errorf(backend.CodeDownstreamUnreachable, "the connection to %s was lost", name).
		WithHint("retry: the connection is reopened on the next call")
}

func isAuthFailure(err error) bool {
	var status *httpStatusError
	if errors.As(err, &status) && (status.status == http.StatusUnauthorized || status.status == http.StatusForbidden) {
		return true
	}
	return errors.Is(err, transport.ErrAuthorizationRequired) || errors.Is(err, transport.ErrUnauthorized)
}

func statusSuffix(err error) string {
	var status *httpStatusError
	if errors.As(err, &status) {
		return fmt.Sprintf(" (HTTP %d)", status.status)
	}
	return ""
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// callerGaveUp reports whether err is the caller's context ending, not a connect timeout nor
// the service's own call timeout running out.
func callerGaveUp(err error) bool {
	return ctxCause(err) && !errors.Is(err, errConnectTimeout) && !errors.Is(err, errCallTimeout)
}

func ctxCause(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
