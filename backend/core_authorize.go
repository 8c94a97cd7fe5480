package backend

import "context"

// Authorize checks that the caller's scope is at least need (agent:read < agent < admin) before
// an adapter reads a request's shape, so a caller who may not do something learns that first,
// not how to spell the request. what completes "scope X may not …". It is the same check the
// Service method runs again; adapters call it only to order their answers.
func Authorize(ctx context.Context, need Scope, what string) error {
	check := canRead
	switch need {
	case ScopeAdmin:
		check = isAdmin
	case ScopeAgent:
		check = canWrite
	}
	_, err := requireScope(ctx, check, what)
	return err
}
