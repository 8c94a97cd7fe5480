package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

const personColumns = `p.id::text, p.name, p.role, p.email, p.oidc_subject, p.founder, p.created_at, p.removed_at`

func scanPerson(row pgx.Row) (backend.Person, error) {
	var p backend.Person
	var role string
	err := row.Scan(&p.ID, &p.Name, &role, &p.Email, &p.OIDCSubject, &p.Founder, &p.CreatedAt, &p.RemovedAt)
	p.Role = backend.Role(role)
	return p, err
}

// founderID is the SQL of the first admin's id: what a row made without a person belongs to.
const founderID = `(SELECT id FROM people WHERE founder)`

// CreatePerson inserts a person, filling id and created_at.
func (s *Store) CreatePerson(ctx context.Context, p *backend.Person) error {
	const q = `
		INSERT INTO people (name, role, email, oidc_subject, created_at)
		VALUES ($1, $2, $3, $4, COALESCE($5::timestamptz, now()))
		RETURNING id::text, created_at`
	err := s.db.QueryRow(ctx, q, p.Name, string(p.Role), p.Email, p.OIDCSubject, nullTime(p.CreatedAt)).
		Scan(&p.ID, &p.CreatedAt)
	return classify("create person", err)
}

// UpdatePerson writes a live person's role, e-mail and OIDC subject.
func (s *Store) UpdatePerson(ctx context.Context, p *backend.Person) error {
	u := asUUID(p.ID)
	if u == "" {
		return notFound("person", p.ID)
	}
	const q = `UPDATE people SET role = $2, email = $3, oidc_subject = $4
		WHERE id = $1 AND removed_at IS NULL RETURNING created_at`
	err := s.db.QueryRow(ctx, q, u, string(p.Role), p.Email, p.OIDCSubject).Scan(&p.CreatedAt)
	return rowErr("update person", "person", p.ID, err)
}

// ListPeople returns the live people (and the removed ones when asked), by name.
func (s *Store) ListPeople(ctx context.Context, removed bool) ([]backend.Person, error) {
	rows, err := s.db.Query(ctx, `SELECT `+personColumns+` FROM people p
		WHERE $1 OR p.removed_at IS NULL ORDER BY p.removed_at IS NOT NULL, lower(p.name), p.created_at`, removed)
	if err != nil {
		return nil, classify("list people", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (backend.Person, error) { return scanPerson(r) })
	return out, classify("list people", err)
}

// GetPerson finds a live person by id or by name, case-insensitively.
func (s *Store) GetPerson(ctx context.Context, ref string) (backend.Person, error) {
	const q = `SELECT ` + personColumns + ` FROM people p
		WHERE p.removed_at IS NULL AND (p.id = $1::uuid OR lower(p.name) = lower($2))
		ORDER BY p.id = $1::uuid DESC NULLS LAST LIMIT 1`
	p, err := scanPerson(s.db.QueryRow(ctx, q, nullString(asUUID(ref)), ref))
	return p, rowErr("get person", "person", ref, err)
}

// PersonBySignIn finds the live person with this OIDC subject, else with this e-mail
// (case-insensitively); either may be empty.
func (s *Store) PersonBySignIn(ctx context.Context, subject, email string) (backend.Person, error) {
	const q = `SELECT ` + personColumns + ` FROM people p
		WHERE p.removed_at IS NULL AND (($1 <> '' AND p.oidc_subject = $1) OR ($2 <> '' AND lower(p.email) = lower($2)))
		ORDER BY ($1 <> '' AND p.oidc_subject = $1) DESC LIMIT 1`
	p, err := scanPerson(s.db.QueryRow(ctx, q, subject, email))
	if errors.Is(err, pgx.ErrNoRows) {
		return p, backend.Errorf(backend.CodeNotFound, "no person signs in so")
	}
	return p, classify("find person by sign-in", err)
}

// FounderAdmin returns the admin the first start made.
func (s *Store) FounderAdmin(ctx context.Context) (backend.Person, error) {
	p, err := scanPerson(s.db.QueryRow(ctx, `SELECT `+personColumns+` FROM people p WHERE p.founder`))
	return p, rowErr("get the first admin", "person", "admin", err)
}

// RemovePerson marks a live person removed, revokes every token of theirs and terminates their
// live MCP sessions, in one transaction; each change is announced to every replica.
func (s *Store) RemovePerson(ctx context.Context, id string, at time.Time) (backend.PersonRemoval, error) {
	var out backend.PersonRemoval
	u := asUUID(id)
	if u == "" {
		return out, notFound("person", id)
	}
	err := s.transact(ctx, func(tx *Store) error {
		p, err := scanPerson(tx.db.QueryRow(ctx, `UPDATE people p SET removed_at = $2
			WHERE p.id = $1 AND p.removed_at IS NULL RETURNING `+personColumns, u, at))
		if err != nil {
			return rowErr("remove person", "person", id, err)
		}
		out.Person = p
		tag, err := tx.db.Exec(ctx, `UPDATE tokens SET revoked_at = $2 WHERE person_id = $1 AND revoked_at IS NULL`, u, at)
		if err != nil {
			return classify("revoke the person's tokens", err)
		}
		out.RevokedTokens = int(tag.RowsAffected())
		// Their own downstream sign-ins act for nobody now: forget them.
		if _, err := tx.db.Exec(ctx, `DELETE FROM service_person_oauth WHERE person_id = $1`, u); err != nil {
			return classify("forget the person's sign-ins", err)
		}
		rows, err := tx.db.Query(ctx, `UPDATE mcp_sessions m SET terminated_at = $2
			FROM tokens t WHERE t.id = m.token_id AND t.person_id = $1 AND m.terminated_at IS NULL
			RETURNING m.id`, u, at)
		if err != nil {
			return classify("end the person's sessions", err)
		}
		out.EndedSessions, err = pgx.CollectRows(rows, pgx.RowTo[string])
		out.EndedSessions = strs(out.EndedSessions)
		return classify("end the person's sessions", err)
	})
	return out, err
}

// copyOwners resolves the owner of each row a COPY writes: the one given, else the first admin
// (what the INSERTs' COALESCE gives), as the bytes of its UUID; owners are set to the ids.
func (s *Store) copyOwners(ctx context.Context, owners []*string) ([][16]byte, error) {
	out := make([][16]byte, len(owners))
	var founder string
	for i, op := range owners {
		o := *op
		if o == "" {
			if founder == "" {
				if err := s.db.QueryRow(ctx, `SELECT id::text FROM people WHERE founder`).Scan(&founder); err != nil {
					return nil, classify("read the first admin", err)
				}
			}
			o = founder
		}
		id, err := uuid.Parse(o)
		if err != nil {
			return nil, err
		}
		out[i], *op = id, id.String()
	}
	return out, nil
}
