package core

import (
	"context"
	"sync"

	"github.com/agent-deck/agent-deck/backend"
)

// oauthStates is this replica's copy of its services' sign-in states, for the deck snapshot,
// which renders without I/O. A service is loaded from the store the first time a snapshot shows
// it, kept current by every sign-in write made here, and marked stale when the change feed
// reports a change of the service (a sign-in elsewhere): a stale state is still shown until the
// next load reads the store, so a snapshot rendered while the feed's notice lands never loses the
// word. A service with no sign-in holds OAuthStateNone, so the store is asked once per change.
type oauthStates struct{ m sync.Map } // service id → oauthEntry

type oauthEntry struct {
	state backend.OAuthState
	stale bool // the feed reported a change since state was read
}

func (o *oauthStates) note(serviceID string, st backend.OAuthState) {
	if st == "" {
		st = backend.OAuthStateNone
	}
	o.m.Store(serviceID, oauthEntry{state: st})
}

// forget marks a service's state stale (every state for an empty id), so the next load reads
// the store again; a state noted meanwhile is left as it is.
func (o *oauthStates) forget(serviceID string) {
	stale := func(k, v any) bool {
		e := v.(oauthEntry)
		if !e.stale {
			o.m.CompareAndSwap(k, e, oauthEntry{state: e.state, stale: true})
		}
		return true
	}
	if serviceID == "" {
		o.m.Range(stale)
		return
	}
	if v, ok := o.m.Load(serviceID); ok {
		stale(serviceID, v)
	}
}

// known reports whether the service's state was read and nothing changed it since.
func (o *oauthStates) known(serviceID string) bool {
	v, ok := o.m.Load(serviceID)
	return ok && !v.(oauthEntry).stale
}

// word is the state a snapshot shows: empty for a service without a sign-in (or not loaded).
func (o *oauthStates) word(serviceID string) backend.OAuthState {
	v, ok := o.m.Load(serviceID)
	if !ok || v.(oauthEntry).state == backend.OAuthStateNone {
		return ""
	}
	return v.(oauthEntry).state
}

// loadOAuthStates reads the sign-in state of the remote services not yet known.
func (s signIn) loadOAuthStates(ctx context.Context, recs []backend.ServiceRecord) {
	for i := range recs {
		if recs[i].Type != backend.ServiceRemote {
			continue
		}
		if s.h.oauth.known(recs[i].ID) {
			continue
		}
		r, err := s.h.store.GetOAuth(ctx, recs[i].ID, "")
		switch {
		case backend.IsNotFound(err):
			s.h.oauth.note(recs[i].ID, backend.OAuthStateNone)
		case err == nil:
			s.h.oauth.note(recs[i].ID, r.State)
		}
	}
}

// A person's own sign-in is not the service's state that snapshots show: only the service's one
// sign-in is noted.

func (s signIn) putOAuth(ctx context.Context, r *backend.OAuthRecord) error {
	err := s.h.store.PutOAuth(ctx, r)
	if err == nil && r.PersonID == "" {
		s.h.oauth.note(r.ServiceID, r.State)
	}
	return err
}

// recordFailure stores a sign-in that ended in an error. The person is told of the sign-in's
// own error; a failure to record it is logged, and the service keeps its previous state.
func (s signIn) recordFailure(ctx context.Context, r *backend.OAuthRecord) {
	if err := s.putOAuth(ctx, r); err != nil {
		s.h.log.Warn("recording a failed sign-in failed; the service keeps its previous sign-in state",
			"service_id", r.ServiceID, "sign_in_error", r.LastError, "error", backend.ErrorCode(err))
	}
}

func (s signIn) deleteOAuth(ctx context.Context, serviceID, personID string) error {
	err := s.h.store.DeleteOAuth(ctx, serviceID, personID)
	if err == nil && personID == "" {
		s.h.oauth.note(serviceID, backend.OAuthStateNone)
	}
	return err
}

func (s signIn) lockOAuth(ctx context.Context, serviceID, personID string, fn func(backend.OAuthRecord) (backend.OAuthRecord, error)) (backend.OAuthRecord, error) {
	r, err := s.h.store.LockOAuth(ctx, serviceID, personID, fn)
	if r.ServiceID != "" && personID == "" {
		s.h.oauth.note(serviceID, r.State)
	}
	return r, err
}
