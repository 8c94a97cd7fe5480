package backend

import "context"

// TargetForTest exposes the unexported target builder to the external tests: it loads the
// service by ref and decrypts everything the proxy would receive.
func (s *Service) TargetForTest(ctx context.Context, ref string) (Target, error) {
	rec, err := s.store.GetService(ctx, ref)
	if err != nil {
		return Target{}, err
	}
	return s.target(ctx, rec)
}
