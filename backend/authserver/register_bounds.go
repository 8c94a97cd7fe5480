package authserver

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"time"

	"golang.org/x/time/rate"

	"github.com/agent-deck/agent-deck/backend"
)

// Registration needs no token (RFC 7591 allows open registration, and MCP clients rely on it),
// so it is bounded instead: a rate per replica, a total of registered clients, and an expiry
// for clients that never complete a sign-in. At the total, the oldest client that never signed
// in makes room for the new one; only a server full of signed-in clients refuses.

// Registration bounds' defaults.
const (
	DefaultRegistrationsPerMinute = 10
	DefaultMaxClients             = 1000
	DefaultUnusedClientTTL        = time.Hour
)

// registrationLimiter is the per-replica rate of registrations, a token bucket that holds a
// minute's worth.
func registrationLimiter(perMinute int) *rate.Limiter {
	return rate.NewLimiter(rate.Limit(float64(perMinute)/60), perMinute)
}

// admitRegistration takes one registration from the replica's rate, or says when to retry.
func (s *Server) admitRegistration(now time.Time) error {
	r := s.registrations.ReserveN(now, 1)
	wait := r.DelayFrom(now)
	if r.OK() && wait == 0 {
		return nil
	}
	r.CancelAt(now)
	secs := int(math.Ceil(wait.Seconds()))
	return &Error{Code: "temporarily_unavailable", Status: http.StatusTooManyRequests, RetryAfter: max(secs, 1),
		Description: fmt.Sprintf("too many client registrations: this server accepts %d a minute; retry in %d s",
			s.cfg.RegistrationsPerMinute, max(secs, 1))}
}

// roomForClient forgets clients that never signed in within their time, and the oldest such
// clients while the server is at its total; it refuses only when signed-in clients fill it.
func (s *Server) roomForClient(ctx context.Context, now time.Time) error {
	left, err := s.store.PruneOAuthClients(ctx, now.Add(-s.cfg.UnusedClientTTL), s.cfg.MaxClients-1)
	if err != nil {
		return backend.StoreErr("pruning oauth clients", err)
	}
	if left < s.cfg.MaxClients {
		return nil
	}
	return &Error{Code: "temporarily_unavailable", Status: http.StatusServiceUnavailable,
		Description: fmt.Sprintf("this server holds %d registered clients that have signed in, its limit; "+
			"an operator revokes unused sign-ins or raises --oauth-max-clients", left)}
}

// expired says whether a registered client never completed a sign-in within its time; such a
// client cannot start one either, and registers again.
func (s *Server) expired(c backend.AuthClient) error {
	if c.SignedInAt != nil || c.CreatedAt.IsZero() || s.clock().Sub(c.CreatedAt) < s.cfg.UnusedClientTTL {
		return nil
	}
	return oauthErr("invalid_client", "client_id %q never completed a sign-in within %s of registering and has expired; register again at %s",
		backend.Clip(c.ID, 80), s.cfg.UnusedClientTTL, backend.OAuthRegisterPath)
}
