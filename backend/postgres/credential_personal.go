package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

// SetPersonalSecret stores a person's own sealed secret for a credential; nil deletes it.
func (s *Store) SetPersonalSecret(ctx context.Context, credentialID, personID string, sealed []byte, at time.Time) error {
	u := asUUID(personID)
	if u == "" {
		return notFound("person", personID)
	}
	if sealed == nil {
		tag, err := s.db.Exec(ctx, `DELETE FROM credential_person_secrets WHERE credential_id = $1 AND person_id = $2`,
			credentialID, u)
		if err != nil {
			return classify("delete a personal secret", err)
		}
		if tag.RowsAffected() == 0 {
			return backend.Errorf(backend.CodeNotFound, "no personal secret")
		}
		return nil
	}
	_, err := s.db.Exec(ctx, `INSERT INTO credential_person_secrets (credential_id, person_id, sealed_secret, updated_at)
		VALUES ($1, $2, $3, $4)
		ON CONFLICT (credential_id, person_id) DO UPDATE SET sealed_secret = $3, updated_at = $4`,
		credentialID, u, sealed, at)
	return classify("store a personal secret", err)
}

// PersonalSecret returns a person's own sealed secret for a credential; NOT_FOUND when they have
// set none.
func (s *Store) PersonalSecret(ctx context.Context, credentialID, personID string) ([]byte, time.Time, error) {
	var sealed []byte
	var at time.Time
	u := asUUID(personID)
	if u == "" {
		return nil, at, backend.Errorf(backend.CodeNotFound, "no personal secret")
	}
	err := s.db.QueryRow(ctx, `SELECT sealed_secret, updated_at FROM credential_person_secrets
		WHERE credential_id = $1 AND person_id = $2`, credentialID, u).Scan(&sealed, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, at, backend.Errorf(backend.CodeNotFound, "no personal secret")
	}
	return sealed, at, classify("read a personal secret", err)
}

// PersonalSecretIDs returns the credentials a person has set their own secret for.
func (s *Store) PersonalSecretIDs(ctx context.Context, personID string) (map[string]bool, error) {
	out := map[string]bool{}
	u := asUUID(personID)
	if u == "" {
		return out, nil
	}
	rows, err := s.db.Query(ctx, `SELECT credential_id FROM credential_person_secrets WHERE person_id = $1`, u)
	if err != nil {
		return nil, classify("list personal secrets", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	for _, id := range ids {
		out[id] = true
	}
	return out, classify("list personal secrets", err)
}
