package core

import (
	"context"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

// oauthWrites is a Store whose sign-in writes succeed and write nothing: what is under test is
// the cache drop of the wrapper around it, not the database.
type oauthWrites struct{ backend.Store }

func (oauthWrites) PutOAuth(context.Context, *backend.OAuthRecord) error { return nil }
func (oauthWrites) DeleteOAuth(context.Context, string, string) error    { return nil }
func (oauthWrites) LockOAuth(_ context.Context, _, _ string, fn func(backend.OAuthRecord) (backend.OAuthRecord, error)) (backend.OAuthRecord, error) {
	return fn(backend.OAuthRecord{})
}

// TestSignInDropsCachedTarget: a service's cached target carries its bearer token (or none,
// before a sign-in). A sign-in, a refresh or a disconnect on this replica drops it before the
// write returns, so the very next call sends the new token instead of waiting for the change
// feed (a call right after Connect in the dashboard was refused now and then).
func TestSignInDropsCachedTarget(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		write func(backend.Store) error
	}{
		{"sign-in", func(s backend.Store) error { return s.PutOAuth(ctx, &backend.OAuthRecord{ServiceID: "svc"}) }},
		{"disconnect", func(s backend.Store) error { return s.DeleteOAuth(ctx, "svc", "") }},
		{"refresh", func(s backend.Store) error {
			_, err := s.LockOAuth(ctx, "svc", "", func(r backend.OAuthRecord) (backend.OAuthRecord, error) { return r, nil })
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCaches()
			c.setLive(true)
			gen, _ := c.generation()
			cachePut(c, serviceMap, gen, "svc", serviceEntry{})
			if _, ok := cacheGet(c, serviceMap, "svc"); !ok {
				t.Fatal("the target was not cached")
			}
			if err := tc.write(&invalidatingStore{Store: oauthWrites{}, c: c}); err != nil {
				t.Fatal(err)
			}
			if _, ok := cacheGet(c, serviceMap, "svc"); ok {
				t.Error("the cached target (and its old token) outlived the write")
			}
		})
	}
}
