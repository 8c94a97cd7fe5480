package postgres

import (
	"context"
)

// SetSamplingAllowed records whether the deck lets the service ask the agent's model for
// completions: a row when allowed, none when not. Setting what is already set changes nothing.
func (s *Store) SetSamplingAllowed(ctx context.Context, deckID, serviceID string, allowed bool) error {
	deck, svc := asUUID(deckID), asUUID(serviceID)
	if deck == "" {
		return notFound("deck", deckID)
	}
	if svc == "" {
		return notFound("service", serviceID)
	}
	var err error
	if allowed {
		_, err = s.db.Exec(ctx, `INSERT INTO deck_sampling (deck_id, service_id) VALUES ($1, $2)
			ON CONFLICT (deck_id, service_id) DO NOTHING`, deck, svc)
	} else {
		_, err = s.db.Exec(ctx, `DELETE FROM deck_sampling WHERE deck_id = $1 AND service_id = $2`, deck, svc)
	}
	return classify("set sampling on a deck", err)
}

// SamplingAllowed reports whether the deck lets the service sample; unknown ids are not allowed.
func (s *Store) SamplingAllowed(ctx context.Context, deckID, serviceID string) (bool, error) {
	deck, svc := asUUID(deckID), asUUID(serviceID)
	if deck == "" || svc == "" {
		return false, nil
	}
	var allowed bool
	err := s.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM deck_sampling WHERE deck_id = $1 AND service_id = $2)`,
		deck, svc).Scan(&allowed)
	return allowed, classify("read sampling of a deck", err)
}

// ListSamplingServices returns the ids of the services the deck lets sample, in id order.
func (s *Store) ListSamplingServices(ctx context.Context, deckID string) ([]string, error) {
	deck := asUUID(deckID)
	if deck == "" {
		return nil, nil
	}
	rows, err := s.db.Query(ctx, `SELECT service_id::text FROM deck_sampling WHERE deck_id = $1 ORDER BY service_id`, deck)
	if err != nil {
		return nil, classify("list sampling services of a deck", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, classify("list sampling services of a deck", err)
		}
		out = append(out, id)
	}
	return out, classify("list sampling services of a deck", rows.Err())
}
