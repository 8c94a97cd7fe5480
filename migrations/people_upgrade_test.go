package migrations_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestPeopleUpgradeInPlace (issue 26): a single-person install from before people, with data,
// migrates in place: one admin person appears, every token, deck and card belongs to it, decks
// stay private (which changes nothing for an admin), and nothing else changes.
func TestPeopleUpgradeInPlace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, rest, apply := beforeMigration(t, "0056_")
	stamp := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	seed := []string{
		`INSERT INTO tokens (id, name, scope, hash) VALUES
			('11111111-1111-4111-8111-111111111111', 'admin (created by serve)', 'admin', decode(repeat('a', 64), 'hex')),
			('22222222-2222-4222-8222-222222222222', 'laptop agent', 'agent', decode(repeat('b', 64), 'hex'))`,
		`INSERT INTO decks (id, name, created_at, updated_at) VALUES ('33333333-3333-4333-8333-333333333333', 'dev', $1, $1)`,
		`INSERT INTO services (id, name, type, url, updated_at) VALUES ('44444444-4444-4444-8444-444444444444', 'peer', 'mcp', 'http://127.0.0.1:1/mcp', $1)`,
		`INSERT INTO credentials (id, label, env_name, sealed_secret, updated_at) VALUES ('cred_gh', 'GitHub', 'GITHUB_API_KEY', '\x01', $1)`,
		`INSERT INTO playbooks (id, title, body, updated_at) VALUES ('pb_release', 'Release', 'ship it', $1)`,
		`INSERT INTO deck_cards (deck_id, card_type, service_id, position) VALUES ('33333333-3333-4333-8333-333333333333', 'service', '44444444-4444-4444-8444-444444444444', 0)`,
		`INSERT INTO tool_calls (at, token_id, token_name, tool, duration_us, outcome) VALUES ($1, '22222222-2222-4222-8222-222222222222', 'laptop agent', 'echo', 10, 'ok')`,
		`INSERT INTO playbook_proposals (kind, playbook_id, rationale, token_id) VALUES ('update', 'pb_release', 'why', '22222222-2222-4222-8222-222222222222')`,
	}
	for _, q := range seed {
		var args []any
		if strings.Contains(q, "$1") {
			args = append(args, stamp)
		}
		if _, err := conn.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	apply(rest...)

	rows, _ := conn.Query(ctx, `SELECT name || ':' || role || ':' || founder FROM people`)
	people, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || !slices.Equal(people, []string{"admin:admin:true"}) {
		t.Fatalf("people after the upgrade = %v (%v), want the one first admin", people, err)
	}
	checks := map[string]string{
		"every token is the admin's":   `SELECT count(*) FROM tokens WHERE person_id <> (SELECT id FROM people WHERE founder)`,
		"every deck is the admin's":    `SELECT count(*) FROM decks WHERE owner_id <> (SELECT id FROM people WHERE founder) OR sharing <> 'private'`,
		"every card is the admin's":    `SELECT (SELECT count(*) FROM services WHERE owner_id <> f.id) + (SELECT count(*) FROM credentials WHERE owner_id <> f.id) + (SELECT count(*) FROM playbooks WHERE owner_id <> f.id) FROM people f WHERE f.founder`,
		"nothing is personal":          `SELECT (SELECT count(*) FROM services WHERE personal) + (SELECT count(*) FROM credentials WHERE personal)`,
		"no share, no personal secret": `SELECT (SELECT count(*) FROM deck_shares) + (SELECT count(*) FROM credential_person_secrets)`,
		"nothing else changed":         `SELECT count(*) FROM decks d, services s, credentials c, playbooks p WHERE d.updated_at <> $1 OR s.updated_at <> $1 OR c.updated_at <> $1 OR p.updated_at <> $1 OR c.sealed_secret <> '\x01' OR p.body <> 'ship it'`,
		"the tokens still work":        `SELECT count(*) FROM tokens WHERE revoked_at IS NOT NULL OR (name, scope) NOT IN (('admin (created by serve)', 'admin'), ('laptop agent', 'agent'))`,
		"the links stay":               `SELECT 1 - count(*) FROM deck_cards`,
		"the trail names the admin":    `SELECT count(*) FROM tool_calls WHERE person_name <> 'admin' OR person_id IS NULL`,
		"the proposal names the admin": `SELECT count(*) FROM playbook_proposals WHERE person_name <> 'admin'`,
	}
	for name, q := range checks {
		var args []any
		if strings.Contains(q, "$1") {
			args = append(args, stamp)
		}
		var n int
		if err := conn.QueryRow(ctx, q, args...).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s: %d rows break it (%v)", name, n, err)
		}
	}
}
