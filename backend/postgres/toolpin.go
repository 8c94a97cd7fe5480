package postgres

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

// ToolPins returns the service's pinned tool definitions by tool name.
func (s *Store) ToolPins(ctx context.Context, serviceID string) ([]backend.ToolPin, error) {
	id := asUUID(serviceID)
	if id == "" {
		return nil, notFound("service", serviceID)
	}
	rows, err := s.db.Query(ctx, `
		SELECT service_id::text, tool_name, hash, definition, approved_at, approved_by
		FROM service_tool_pins WHERE service_id = $1 ORDER BY tool_name`, id)
	if err != nil {
		return nil, classify("list tool pins", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (backend.ToolPin, error) {
		var p backend.ToolPin
		err := r.Scan(&p.ServiceID, &p.ToolName, &p.Hash, &p.Definition, &p.ApprovedAt, &p.ApprovedBy)
		return p, err
	})
	if err != nil {
		return nil, classify("list tool pins", err)
	}
	return out, nil
}

// PinToolsFirstUse marks the first contact and inserts the pins in one transaction. The mark is
// taken with a conditional update, so of two replicas reaching a new service at once one pins
// and the other finds it done.
func (s *Store) PinToolsFirstUse(ctx context.Context, serviceID string, pins []backend.ToolPin) (bool, error) {
	id := asUUID(serviceID)
	if id == "" {
		return false, notFound("service", serviceID)
	}
	first := false
	err := s.transact(ctx, func(tx *Store) error {
		tag, err := tx.db.Exec(ctx, `UPDATE services SET tools_pinned_at = now()
			WHERE id = $1 AND tools_pinned_at IS NULL`, id)
		if err != nil {
			return classify("mark a service's tools pinned", err)
		}
		if tag.RowsAffected() == 0 {
			return nil
		}
		first = true
		return tx.upsertPins(ctx, id, pins, false)
	})
	return first, err
}

// ApproveToolPins replaces the pins of the given tools and marks the first contact if needed.
func (s *Store) ApproveToolPins(ctx context.Context, serviceID string, pins []backend.ToolPin) error {
	id := asUUID(serviceID)
	if id == "" {
		return notFound("service", serviceID)
	}
	return s.transact(ctx, func(tx *Store) error {
		if err := tx.execOne(ctx, "mark a service's tools pinned", "service", serviceID,
			`UPDATE services SET tools_pinned_at = COALESCE(tools_pinned_at, now()) WHERE id = $1`, id); err != nil {
			return err
		}
		return tx.upsertPins(ctx, id, pins, true)
	})
}

// ClearToolPins forgets every pin of the service and its first contact.
func (s *Store) ClearToolPins(ctx context.Context, serviceID string) error {
	id := asUUID(serviceID)
	if id == "" {
		return notFound("service", serviceID)
	}
	return s.transact(ctx, func(tx *Store) error {
		if _, err := tx.db.Exec(ctx, `DELETE FROM service_tool_pins WHERE service_id = $1`, id); err != nil {
			return classify("clear tool pins", err)
		}
		if _, err := tx.db.Exec(ctx, `DELETE FROM service_tool_holds WHERE service_id = $1`, id); err != nil {
			return classify("clear tool holds", err)
		}
		_, err := tx.db.Exec(ctx, `UPDATE services SET tools_pinned_at = NULL
			WHERE id = $1 AND tools_pinned_at IS NOT NULL`, id)
		return classify("clear tool pins", err)
	})
}

// upsertPins writes pins in one batch; replace says whether an existing pin is overwritten
// (approval) or kept (first use).
func (s *Store) upsertPins(ctx context.Context, serviceID string, pins []backend.ToolPin, replace bool) error {
	q := `INSERT INTO service_tool_pins (service_id, tool_name, hash, definition, approved_at, approved_by)
		VALUES ($1, $2, $3, $4, COALESCE($5::timestamptz, now()), $6)
		ON CONFLICT (service_id, tool_name) DO NOTHING`
	if replace {
		q = `INSERT INTO service_tool_pins (service_id, tool_name, hash, definition, approved_at, approved_by)
		VALUES ($1, $2, $3, $4, COALESCE($5::timestamptz, now()), $6)
		ON CONFLICT (service_id, tool_name) DO UPDATE SET hash = EXCLUDED.hash,
			definition = EXCLUDED.definition, approved_at = EXCLUDED.approved_at, approved_by = EXCLUDED.approved_by`
	}
	b := &pgx.Batch{}
	for _, p := range pins {
		b.Queue(q, serviceID, p.ToolName, p.Hash, string(p.Definition), nullTime(p.ApprovedAt), p.ApprovedBy)
		// A definition approved is no longer held, whichever connection saw it.
		b.Queue(`DELETE FROM service_tool_holds WHERE service_id = $1 AND tool_name = $2 AND hash = $3`,
			serviceID, p.ToolName, p.Hash)
	}
	if b.Len() == 0 {
		return nil
	}
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return classify("pin tool definitions", err)
	}
	return nil
}

// RecordToolHold inserts a hold, or moves its last_seen when the connection saw it before.
func (s *Store) RecordToolHold(ctx context.Context, h backend.ToolHold) error {
	id := asUUID(h.ServiceID)
	if id == "" {
		return notFound("service", h.ServiceID)
	}
	_, err := s.db.Exec(ctx, `INSERT INTO service_tool_holds (service_id, tool_name, hash, definition, seen_on)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (service_id, tool_name, hash, seen_on) DO UPDATE SET last_seen = now()`,
		id, h.ToolName, h.Hash, string(h.Definition), h.SeenOn)
	return classify("record a held tool", err)
}

// DropUnservedToolHolds deletes the connection's holds of definitions its latest list no longer
// serves: a tool gone, or served with another definition.
func (s *Store) DropUnservedToolHolds(ctx context.Context, serviceID, seenOn string, served map[string]string) error {
	id := asUUID(serviceID)
	if id == "" {
		return notFound("service", serviceID)
	}
	names, hashes := make([]string, 0, len(served)), make([]string, 0, len(served))
	for name, hash := range served {
		names, hashes = append(names, name), append(hashes, hash)
	}
	_, err := s.db.Exec(ctx, `DELETE FROM service_tool_holds h
		WHERE h.service_id = $1 AND h.seen_on = $2 AND NOT EXISTS (
			SELECT 1 FROM unnest($3::text[], $4::text[]) AS s (tool_name, hash)
			WHERE s.tool_name = h.tool_name AND s.hash = h.hash)`, id, seenOn, names, hashes)
	return classify("drop tool holds no longer served", err)
}

// ToolHolds returns the service's recorded holds.
func (s *Store) ToolHolds(ctx context.Context, serviceID string) ([]backend.ToolHold, error) {
	id := asUUID(serviceID)
	if id == "" {
		return nil, notFound("service", serviceID)
	}
	rows, err := s.db.Query(ctx, `
		SELECT service_id::text, tool_name, hash, definition, seen_on, first_seen, last_seen
		FROM service_tool_holds WHERE service_id = $1 ORDER BY tool_name, first_seen, seen_on`, id)
	if err != nil {
		return nil, classify("list tool holds", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (backend.ToolHold, error) {
		var h backend.ToolHold
		var def string
		err := r.Scan(&h.ServiceID, &h.ToolName, &h.Hash, &def, &h.SeenOn, &h.FirstSeen, &h.LastSeen)
		h.Definition = json.RawMessage(def)
		return h, err
	})
	if err != nil {
		return nil, classify("list tool holds", err)
	}
	return out, nil
}
