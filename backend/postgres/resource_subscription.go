package postgres

import (
	"context"

	"github.com/agent-deck/agent-deck/backend"
)

// SubscribeResource records a session's subscription to a playbook's resource; subscribing again
// to the same playbook, by any URI, keeps one subscription by the latest URI.
func (s *Store) SubscribeResource(ctx context.Context, sub backend.ResourceSubscription) error {
	_, err := s.db.Exec(ctx, `INSERT INTO mcp_resource_subscriptions (session_id, uri, playbook_id) VALUES ($1, $2, $3)
		ON CONFLICT (session_id, playbook_id) DO UPDATE SET uri = $2`, sub.SessionID, sub.URI, sub.PlaybookID)
	return classify("subscribe to a resource", err)
}

// UnsubscribeResource drops a session's subscription; an unknown one is fine.
func (s *Store) UnsubscribeResource(ctx context.Context, sessionID, uri string) error {
	_, err := s.db.Exec(ctx, `DELETE FROM mcp_resource_subscriptions WHERE session_id = $1 AND uri = $2`, sessionID, uri)
	return classify("unsubscribe from a resource", err)
}

// ResourceSubscribers returns the live sessions' subscriptions to a playbook's resource.
func (s *Store) ResourceSubscribers(ctx context.Context, playbookID string) ([]backend.ResourceSubscription, error) {
	rows, err := s.db.Query(ctx, `SELECT r.session_id, r.uri, r.playbook_id FROM mcp_resource_subscriptions r
		JOIN mcp_sessions m ON m.id = r.session_id AND m.terminated_at IS NULL
		WHERE r.playbook_id = $1 ORDER BY r.session_id, r.uri`, playbookID)
	if err != nil {
		return nil, classify("read resource subscriptions", err)
	}
	defer rows.Close()
	var out []backend.ResourceSubscription
	for rows.Next() {
		var sub backend.ResourceSubscription
		if err := rows.Scan(&sub.SessionID, &sub.URI, &sub.PlaybookID); err != nil {
			return nil, classify("read resource subscriptions", err)
		}
		out = append(out, sub)
	}
	return out, classify("read resource subscriptions", rows.Err())
}
