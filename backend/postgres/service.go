package postgres

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

const serviceColumns = `s.id::text, s.name, s.type, s.url, s.transport, s.description, s.headers,
	s.sealed_headers, COALESCE(s.credential_id, ''), s.local_command, s.local_args, s.local_working_dir,
	s.sealed_env, s.disabled_tools, s.timeout_seconds, s.health_status, s.health_last_error,
	s.health_last_success_at, s.health_last_checked_at, s.health_stderr, s.created_at, s.updated_at,
	s.sealed_userinfo, s.pin_tools, s.tools_pinned_at, s.owner_id::text, s.personal, s.talks_back, s.url_by_admin, s.tool_overrides`

func scanService(row pgx.Row) (backend.ServiceRecord, error) {
	var r backend.ServiceRecord
	var typ, transport, health string
	err := row.Scan(&r.ID, &r.Name, &typ, &r.URL, &transport, &r.Description, &r.PlainHeaders,
		&r.SealedHeaders, &r.CredentialID, &r.LocalCommand, &r.LocalArgs, &r.LocalWorkingDir,
		&r.SealedEnv, &r.DisabledTools, &r.TimeoutSeconds, &health, &r.Health.LastError,
		&r.Health.LastSuccessAt, &r.Health.LastCheckedAt, &r.Health.Stderr, &r.CreatedAt, &r.UpdatedAt,
		&r.SealedUserinfo, &r.PinTools, &r.ToolsPinnedAt, &r.OwnerID, &r.Personal, &r.TalksBack, &r.URLByAdmin, &r.ToolOverrides)
	if len(r.ToolOverrides) == 0 {
		r.ToolOverrides = nil
	}
	r.Type, r.Transport, r.Health.Status = backend.ServiceType(typ), backend.Transport(transport), backend.HealthStatus(health)
	r.LocalArgs, r.DisabledTools, r.PlainHeaders = strs(r.LocalArgs), strs(r.DisabledTools), strMap(r.PlainHeaders)
	return r, err
}

func collectServices(rows pgx.Rows, err error) ([]backend.ServiceRecord, error) {
	if err != nil {
		return nil, classify("list services", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (backend.ServiceRecord, error) { return scanService(r) })
	if err != nil {
		return nil, classify("list services", err)
	}
	return out, nil
}

// serviceArgs are the configurable columns, in the order of $2.. in create and update.
//
// CreateServices' COPY names these columns in this order: change both together.
func serviceArgs(r *backend.ServiceRecord) []any {
	return []any{r.Name, string(r.Type), r.URL, string(r.Transport), r.Description, strMap(r.PlainHeaders),
		r.SealedHeaders, nullString(r.CredentialID), r.LocalCommand, strs(r.LocalArgs), r.LocalWorkingDir,
		r.SealedEnv, strs(r.DisabledTools), r.TimeoutSeconds, r.SealedUserinfo, r.PinTools, r.Personal, r.URLByAdmin, overrides(r.ToolOverrides)}
}

// overrides stores a service's tool overrides, none as an empty object.
func overrides(m map[string]backend.ToolOverride) map[string]backend.ToolOverride {
	if m == nil {
		return map[string]backend.ToolOverride{}
	}
	return m
}

// CreateService inserts the service, filling its id and timestamps when empty. Health starts
// as given (unknown when empty).
func (s *Store) CreateService(ctx context.Context, r *backend.ServiceRecord) error {
	st := createServiceStmt(r)
	return classify(st.op, st.scan(s.db.QueryRow(ctx, st.sql, st.args...)))
}

// CreateServices creates services in order in one COPY (copyIn).
func (s *Store) CreateServices(ctx context.Context, rs []*backend.ServiceRecord) error {
	stmts, rows := make([]stmt, len(rs)), make([][]any, len(rs))
	now := time.Now()
	for i, r := range rs {
		stmts[i] = createServiceStmt(r)
		if r.ID == "" {
			id, err := backend.NewUUID()
			if err != nil {
				return backend.Internal("create service", err)
			}
			r.ID = id
		}
		id, err := uuid.Parse(r.ID)
		if err != nil {
			rows = nil // not a UUID: the statements below refuse it with their own error
			break
		}
		if r.Transport == "" {
			r.Transport = backend.TransportAuto
		}
		if r.Health.Status == "" {
			r.Health.Status = backend.HealthUnknown
		}
		fillTimes(&r.CreatedAt, &r.UpdatedAt, now)
		rows[i] = append(append([]any{[16]byte(id)}, serviceArgs(r)...), string(r.Health.Status), r.CreatedAt, r.UpdatedAt)
	}
	if rows == nil {
		return s.runBatch(ctx, stmts)
	}
	owners := make([]*string, len(rs))
	for i, r := range rs {
		owners[i] = &r.OwnerID
	}
	ids, err := s.copyOwners(ctx, owners)
	if err != nil {
		return s.runBatch(ctx, stmts) // an owner that is no UUID: the statements refuse it
	}
	for i := range rows {
		rows[i] = append(rows[i], ids[i])
	}
	return s.copyIn(ctx, "services", []string{"id", "name", "type", "url", "transport", "description", "headers",
		"sealed_headers", "credential_id", "local_command", "local_args", "local_working_dir", "sealed_env",
		"disabled_tools", "timeout_seconds", "sealed_userinfo", "pin_tools", "personal", "url_by_admin", "tool_overrides", "health_status", "created_at",
		"updated_at", "owner_id"}, rows, stmts)
}

func createServiceStmt(r *backend.ServiceRecord) stmt {
	const q = `
		INSERT INTO services (id, name, type, url, transport, description, headers, sealed_headers,
			credential_id, local_command, local_args, local_working_dir, sealed_env, disabled_tools,
			timeout_seconds, sealed_userinfo, pin_tools, personal, url_by_admin, tool_overrides, health_status, created_at, updated_at, owner_id)
		VALUES (COALESCE($1::uuid, gen_random_uuid()), $2, $3, $4, COALESCE(NULLIF($5, ''), 'auto'), $6, $7,
			$8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, COALESCE(NULLIF($21, ''), 'unknown'),
			COALESCE($22::timestamptz, now()), COALESCE($22::timestamptz, now()),
			COALESCE(NULLIF($23, '')::uuid, ` + founderID + `))
		RETURNING id::text, transport, health_status, created_at, updated_at, owner_id::text`
	args := append([]any{nullString(r.ID)}, serviceArgs(r)...)
	args = append(args, string(r.Health.Status), nullTime(r.CreatedAt), r.OwnerID)
	return stmt{op: "create service", sql: q, args: args, scan: func(row pgx.Row) error {
		var transport, health string
		if err := row.Scan(&r.ID, &transport, &health, &r.CreatedAt, &r.UpdatedAt, &r.OwnerID); err != nil {
			return err
		}
		r.Transport, r.Health.Status = backend.Transport(transport), backend.HealthStatus(health)
		return nil
	}}
}

// UpdateService writes every configurable field (not health) and sets updated_at to now.
func (s *Store) UpdateService(ctx context.Context, r *backend.ServiceRecord) error {
	const q = `
		UPDATE services SET name = $2, type = $3, url = $4, transport = COALESCE(NULLIF($5, ''), 'auto'),
			description = $6, headers = $7, sealed_headers = $8, credential_id = $9, local_command = $10,
			local_args = $11, local_working_dir = $12, sealed_env = $13, disabled_tools = $14,
			timeout_seconds = $15, sealed_userinfo = $16, pin_tools = $17, personal = $18, url_by_admin = $19, tool_overrides = $20, updated_at = now()
		WHERE id = $1
		RETURNING transport, created_at, updated_at`
	id := asUUID(r.ID)
	if id == "" {
		return notFound("service", r.ID)
	}
	var transport string
	err := s.db.QueryRow(ctx, q, append([]any{id}, serviceArgs(r)...)...).Scan(&transport, &r.CreatedAt, &r.UpdatedAt)
	if err != nil {
		return rowErr("update service", "service", r.ID, err)
	}
	r.Transport = backend.Transport(transport)
	return nil
}

// UpdateServiceHealth records what the proxy learned. Empty timestamps keep the stored ones,
// so a failure does not erase the last success.
func (s *Store) UpdateServiceHealth(ctx context.Context, id string, h backend.Health) error {
	const q = `
		UPDATE services SET health_status = COALESCE(NULLIF($2, ''), 'unknown'), health_last_error = $3,
			health_last_success_at = COALESCE($4, health_last_success_at),
			health_last_checked_at = COALESCE($5, health_last_checked_at), health_stderr = $6
		WHERE id = $1`
	u := asUUID(id)
	if u == "" {
		return notFound("service", id)
	}
	return s.execOne(ctx, "update service health", "service", id, q,
		u, string(h.Status), h.LastError, h.LastSuccessAt, h.LastCheckedAt, h.Stderr)
}

// DeleteService removes the service and its deck links (cascade).
func (s *Store) DeleteService(ctx context.Context, id string) error {
	u := asUUID(id)
	if u == "" {
		return notFound("service", id)
	}
	return s.execOne(ctx, "delete service", "service", id, `DELETE FROM services WHERE id = $1`, u)
}

// GetService finds a service by id or by name, case-insensitively; an id match wins.
func (s *Store) GetService(ctx context.Context, ref string) (backend.ServiceRecord, error) {
	const q = `
		SELECT ` + serviceColumns + ` FROM services s
		WHERE s.id = $1::uuid OR lower(s.name) = lower($2)
		ORDER BY s.id = $1::uuid DESC NULLS LAST LIMIT 1`
	r, err := scanService(s.db.QueryRow(ctx, q, nullString(asUUID(ref)), ref))
	return r, rowErr("get service", "service", ref, err)
}

// ListServices returns every service by name.
func (s *Store) ListServices(ctx context.Context) ([]backend.ServiceRecord, error) {
	return collectServices(s.db.Query(ctx, `SELECT `+serviceColumns+` FROM services s ORDER BY lower(s.name), s.name`))
}

// MarkServiceTalksBack records that the service's downstream talks back; marking it again writes
// nothing (and so announces nothing).
func (s *Store) MarkServiceTalksBack(ctx context.Context, id string) error {
	u := asUUID(id)
	if u == "" {
		return notFound("service", id)
	}
	_, err := s.db.Exec(ctx, `UPDATE services SET talks_back = true WHERE id = $1 AND NOT talks_back`, u)
	return classify("mark service talks back", err)
}
