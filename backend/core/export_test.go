package core

import (
	"context"

	"github.com/agent-deck/agent-deck/backend"
)

// TargetForTest exposes the unexported target builder to the external tests: it loads the
// service by ref and decrypts everything the proxy would receive.
func (s *Hub) TargetForTest(ctx context.Context, ref string) (backend.Target, error) {
	rec, err := s.store.GetService(ctx, ref)
	if err != nil {
		return backend.Target{}, err
	}
	return s.target(ctx, rec)
}
