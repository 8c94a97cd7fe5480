package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

// The state the replicas share for rate limits (backend/ratelimit.Shared).

// TakeRate refills the key's bucket for the time since it was last touched (perMinute a
// minute, up to perMinute), takes consumed calls from it and returns its level, in one
// statement under the row's lock; the database's clock is the one clock.
func (s *Store) TakeRate(ctx context.Context, key string, perMinute, consumed int) (float64, error) {
	var level float64
	err := s.db.QueryRow(ctx, `
		WITH t AS (SELECT clock_timestamp() AS now)
		INSERT INTO rate_buckets AS b (key, tokens, at)
		SELECT $1, $2::float8 - $3, t.now FROM t
		ON CONFLICT (key) DO UPDATE SET
			tokens = GREATEST(-$2::float8, LEAST($2::float8,
				b.tokens + $2::float8 / 60 * GREATEST(0, EXTRACT(EPOCH FROM EXCLUDED.at - b.at))) - $3),
			at = GREATEST(b.at, EXCLUDED.at)
		RETURNING tokens`, key, perMinute, consumed).Scan(&level)
	return level, classify("take from a rate bucket", err)
}

// SyncInFlight records this replica's calls in flight for the key and sums the other
// replicas' seen within staleAfter.
func (s *Store) SyncInFlight(ctx context.Context, key, replica string, inFlight int, staleAfter time.Duration) (int, error) {
	var others int
	err := s.db.QueryRow(ctx, `
		WITH up AS (
			INSERT INTO rate_inflight (key, replica, in_flight, seen_at) VALUES ($1, $2, $3, clock_timestamp())
			ON CONFLICT (key, replica) DO UPDATE SET in_flight = EXCLUDED.in_flight, seen_at = EXCLUDED.seen_at
			RETURNING 1)
		SELECT COALESCE(sum(in_flight), 0)::int FROM rate_inflight
		WHERE key = $1 AND replica <> $2 AND seen_at > clock_timestamp() - make_interval(secs => $4)`,
		key, replica, inFlight, staleAfter.Seconds()).Scan(&others)
	return others, classify("count calls in flight", err)
}

// PruneRateState forgets buckets and in-flight rows untouched since before: a bucket untouched
// for an hour has refilled anyway.
func (s *Store) PruneRateState(ctx context.Context, before time.Time) error {
	_, err := s.db.Exec(ctx, `
		WITH b AS (DELETE FROM rate_buckets WHERE at < $1)
		DELETE FROM rate_inflight WHERE seen_at < $1`, before)
	return classify("prune rate state", err)
}

// RateLimitSettings returns the overrides that bear on a service on a deck: the pair's, the
// service's on every deck and the deck's for all its services. deckID or serviceID "" reads
// only the rows of the other.
func (s *Store) RateLimitSettings(ctx context.Context, deckID, serviceID string) ([]backend.RateLimitSetting, error) {
	rows, err := s.db.Query(ctx, `
		SELECT COALESCE(deck_id::text, ''), COALESCE(service_id::text, ''), calls_per_minute, concurrent_calls
		FROM rate_limit_settings
		WHERE (deck_id IS NULL OR deck_id::text = $1) AND (service_id IS NULL OR service_id::text = $2)`,
		deckID, serviceID)
	if err != nil {
		return nil, classify("read rate limits", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (backend.RateLimitSetting, error) {
		var st backend.RateLimitSetting
		err := r.Scan(&st.DeckID, &st.ServiceID, &st.CallsPerMinute, &st.ConcurrentCalls)
		return st, err
	})
	return out, classify("read rate limits", err)
}

// SetRateLimitSetting stores one override, or deletes it when it sets neither limit.
func (s *Store) SetRateLimitSetting(ctx context.Context, st backend.RateLimitSetting) error {
	deck, svc := asUUID(st.DeckID), asUUID(st.ServiceID)
	if deck == "" && st.DeckID != "" || deck == "" && svc == "" {
		return notFound("deck", st.DeckID)
	}
	if svc == "" && st.ServiceID != "" {
		return notFound("service", st.ServiceID)
	}
	var err error
	if st.CallsPerMinute == nil && st.ConcurrentCalls == nil {
		_, err = s.db.Exec(ctx, `DELETE FROM rate_limit_settings
			WHERE deck_id IS NOT DISTINCT FROM $1::uuid AND service_id IS NOT DISTINCT FROM $2::uuid`,
			nullString(deck), nullString(svc))
	} else {
		_, err = s.db.Exec(ctx, `
			INSERT INTO rate_limit_settings (deck_id, service_id, calls_per_minute, concurrent_calls, updated_at)
			VALUES ($1, $2, $3, $4, now())
			ON CONFLICT (COALESCE(deck_id, '00000000-0000-0000-0000-000000000000'),
				COALESCE(service_id, '00000000-0000-0000-0000-000000000000'))
			DO UPDATE SET calls_per_minute = EXCLUDED.calls_per_minute, concurrent_calls = EXCLUDED.concurrent_calls,
				updated_at = now()`,
			nullString(deck), nullString(svc), st.CallsPerMinute, st.ConcurrentCalls)
	}
	return classify("set a rate limit", err)
}
