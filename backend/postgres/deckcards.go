package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

// The snapshot queries read only what a deck snapshot shows: no playbook bodies, no sealed
// values, no headers or local settings. Each walks the deck's links in position order (the
// unique (deck, type, position) index) and joins the card by primary key.
const (
	linkedServicesQuery = `
		SELECT s.id::text, s.name, s.type, s.url, s.transport, s.description, COALESCE(s.credential_id, ''),
			s.disabled_tools, s.timeout_seconds, s.health_status, s.health_last_error, s.health_last_success_at,
			s.health_last_checked_at, s.sealed_userinfo,
			st.allow_tools, st.deny_tools, COALESCE(st.credential_id, ''), st.deck_id IS NOT NULL, count(*) OVER ()
		FROM deck_cards l JOIN services s ON s.id = l.service_id
			LEFT JOIN deck_service_settings st ON st.deck_id = l.deck_id AND st.service_id = l.service_id
		WHERE l.deck_id = $1 AND l.card_type = 'service' ORDER BY l.position`
	linkedCredentialsQuery = `
		SELECT c.id, c.label, c.scheme, c.header_name, c.env_name, c.tags, c.docs_url,
			c.sealed_secret IS NOT NULL, c.created_at, c.updated_at, count(*) OVER ()
		FROM deck_cards l JOIN credentials c ON c.id = l.credential_id
		WHERE l.deck_id = $1 AND l.card_type = 'credential' ORDER BY l.position`
	linkedPlaybooksQuery = `
		SELECT p.id, p.title, p.triggers, count(*) OVER ()
		FROM deck_cards l JOIN playbooks p ON p.id = l.playbook_id
		WHERE l.deck_id = $1 AND l.card_type = 'playbook' ORDER BY l.position`
)

// LinkedCards loads the deck's cards for a snapshot in one round trip (three queries in one
// batch): the snapshot is the agents' hot path. An unknown deck has no cards.
func (s *Store) LinkedCards(ctx context.Context, deckID string) (backend.LinkedCards, error) {
	out := backend.LinkedCards{Services: []backend.ServiceRecord{}, Credentials: []backend.CredentialRecord{},
		Playbooks: []backend.Playbook{}}
	deck := asUUID(deckID)
	if deck == "" {
		return out, nil
	}
	b := &pgx.Batch{}
	b.Queue(linkedServicesQuery, deck).Query(func(rows pgx.Rows) (err error) {
		out.Services, err = collectCounted(rows, scanLinkedService)
		return err
	})
	b.Queue(linkedCredentialsQuery, deck).Query(func(rows pgx.Rows) (err error) {
		out.Credentials, err = collectCounted(rows, scanLinkedCredential)
		return err
	})
	b.Queue(linkedPlaybooksQuery, deck).Query(func(rows pgx.Rows) (err error) {
		out.Playbooks, err = collectCounted(rows, scanLinkedPlaybook)
		return err
	})
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return backend.LinkedCards{}, classify("load deck cards", err)
	}
	return out, nil
}

// collectCounted scans rows whose last column is count(*) OVER () into a slice allocated once
// at its final size: a snapshot is read thousands of times a second.
func collectCounted[T any](rows pgx.Rows, scan func(row pgx.Rows, total *int) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		var total int
		v, err := scan(rows, &total)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = make([]T, 0, total)
		}
		out = append(out, v)
	}
	if out == nil {
		out = []T{}
	}
	return out, rows.Err()
}

func scanLinkedService(row pgx.Rows, total *int) (backend.ServiceRecord, error) {
	var r backend.ServiceRecord
	var typ, transport, health string
	var st backend.DeckServiceSettings
	var has bool
	err := row.Scan(&r.ID, &r.Name, &typ, &r.URL, &transport, &r.Description, &r.CredentialID,
		&r.DisabledTools, &r.TimeoutSeconds, &health, &r.Health.LastError, &r.Health.LastSuccessAt,
		&r.Health.LastCheckedAt, &r.SealedUserinfo, &st.AllowTools, &st.DenyTools, &st.CredentialID, &has, total)
	if has {
		r.DeckSettings = &st
	}
	r.Type, r.Transport, r.Health.Status = backend.ServiceType(typ), backend.Transport(transport), backend.HealthStatus(health)
	r.DisabledTools = strs(r.DisabledTools)
	return r, err
}

func scanLinkedCredential(row pgx.Rows, total *int) (backend.CredentialRecord, error) {
	var r backend.CredentialRecord
	var scheme string
	err := row.Scan(&r.ID, &r.Label, &scheme, &r.HeaderName, &r.EnvName, &r.Tags, &r.DocsURL, &r.HasSecret,
		&r.CreatedAt, &r.UpdatedAt, total)
	r.Scheme, r.Tags = backend.AuthScheme(scheme), strs(r.Tags)
	return r, err
}

func scanLinkedPlaybook(row pgx.Rows, total *int) (backend.Playbook, error) {
	var p backend.Playbook
	err := row.Scan(&p.ID, &p.Title, &p.Triggers, total)
	p.Triggers = strs(p.Triggers)
	return p, err
}
