package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
)

var _ backend.DownstreamCatalog = (*Proxy)(nil)

// codeMethodNotFound is JSON-RPC's "method not found": the server has no such capability.
const codeMethodNotFound = -32601

// Forward sends one of the requests of backend.CatalogMethods (a downstream's resources,
// prompts and completions) on the service's connection, as it is, under the target's timeout,
// and returns the raw result masked of the service's secrets. Failures are classified as a
// call's are. A server that did not declare the capability at initialize is not asked (some
// leave such a request unanswered until the timeout): the answer is the -32601 of a server
// without the method, in the error's downstream_code, which the caller reads.
func (p *Proxy) Forward(ctx context.Context, t backend.Target, method string, params json.RawMessage) (json.RawMessage, error) {
	if !slices.Contains(backend.CatalogMethods, method) {
		return nil, backend.Internal("forward a request", fmt.Errorf("%s is not a catalog method", method))
	}
	o, err := p.begin(t, false)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, o.timeout, errCallTimeout)
	defer cancel()
	var body any // no params at all rather than null: some servers drop such a request unanswered
	if p := bytes.TrimSpace(params); len(p) > 0 && !bytes.Equal(p, []byte("null")) {
		body = params
	}
	c, err := o.s.connFor(ctx, o.t, o.fp, o.force)
	if err != nil {
		return nil, o.fail(err, phaseConnect)
	}
	offered := declares(c.client.GetServerCapabilities(), method)
	c.release()
	if !offered {
		return nil, notOffered(t, method)
	}
	sctx, endSpan := p.downstreamSpan(ctx, t, method, "")
	raw, ph, err := o.send(sctx, method, body, phaseCall, nil)
	endSpan(err)
	var rpc *rpcError
	if errors.As(err, &rpc) && rpc.code == codeMethodNotFound {
		return nil, notOffered(t, method) // no failure of the service's
	}
	if err != nil {
		return nil, o.fail(err, ph)
	}
	return o.scrub.JSON(raw), nil
}

// notOffered is the answer for a method the service does not have.
func notOffered(t backend.Target, method string) *backend.Error {
	return backend.Errorf(backend.CodeDownstreamError, "%s does not offer %s", t.ServiceName, method).
		WithDetail("downstream_code", codeMethodNotFound)
}

// declares says whether a server's capabilities, as declared at initialize, cover method.
func declares(caps mcp.ServerCapabilities, method string) bool {
	switch {
	case strings.HasPrefix(method, "resources/"):
		return caps.Resources != nil
	case strings.HasPrefix(method, "prompts/"):
		return caps.Prompts != nil
	case method == "completion/complete":
		return caps.Completions != nil
	}
	return false
}
