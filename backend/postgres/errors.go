package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/puddle/v2"

	"github.com/agent-deck/agent-deck/backend"
)

// This file is the one place where database failures become backend codes. Messages name the
// entity and field; the driver's text stays in Err, for logs only.

// entities names each table's rows the way people speak of them.
var entities = map[string]string{
	"decks": "deck", "services": "service", "credentials": "credential", "playbooks": "playbook",
	"playbook_versions": "playbook version", "deck_cards": "deck card", "tokens": "token",
	"mcp_sessions": "session", "exec_audit": "exec audit entry", "people": "person",
}

// constraintFields names the field behind each constraint whose name does not already say it
// (check constraints named <table>_<field>_check need no entry).
var constraintFields = map[string]string{
	"decks_pkey": "id", "decks_name_key": "name",
	"services_pkey": "id", "services_name_key": "name", "services_credential_id_fkey": "credential_id",
	"credentials_pkey": "id", "credentials_label_key": "label",
	"playbooks_pkey": "id", "playbooks_title_key": "title",
	"playbook_versions_pkey": "version", "playbook_versions_playbook_id_fkey": "playbook_id",
	"deck_cards_pkey": "card_id", "deck_cards_position_key": "position", "deck_cards_card_check": "card_id",
	"deck_cards_deck_id_fkey": "deck_id", "deck_cards_service_id_fkey": "card_id",
	"deck_cards_credential_id_fkey": "card_id", "deck_cards_playbook_id_fkey": "card_id",
	"tokens_pkey": "id", "tokens_hash_key": "hash",
	"mcp_sessions_pkey": "id", "mcp_sessions_badge_key": "badge", "mcp_sessions_deck_id_fkey": "deck_id",
	"exec_audit_deck_id_fkey": "deck_id", "exec_audit_token_id_fkey": "token_id",
	"people_name_key": "name", "people_email_key": "email", "people_oidc_subject_key": "oidc_subject",
}

// referenced names what a foreign-key field points at.
var referenced = map[string]string{
	"credential_id": "credential", "deck_id": "deck", "card_id": "card", "playbook_id": "playbook",
	"token_id": "token", "person_id": "person", "owner_id": "person",
}

// classify turns a driver error into a *backend.Error. Errors that are already classified pass
// through unchanged; op says what was being done, for the log.
func classify(op string, err error) error {
	if err == nil {
		return nil
	}
	var be *backend.Error
	if errors.As(err, &be) {
		return err
	}
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr):
		return fromPgError(op, pgErr, err)
	case errors.Is(err, pgx.ErrNoRows):
		return &backend.Error{Code: backend.CodeNotFound, Message: "not found", Err: err}
	case errors.Is(err, context.Canceled):
		// The caller went away; the database is fine.
		return backend.Canceled(err)
	case isConnectionError(err):
		return unavailable(err)
	}
	return backend.Internal(op, err)
}

func unavailable(err error) *backend.Error {
	return &backend.Error{Code: backend.CodeUnavailable, Message: "the database is unavailable",
		Hint: "retry in a few seconds (an embedded database is restarted by serve); if it persists, " +
			"check that PostgreSQL is running", Err: err}
}

func isConnectionError(err error) bool {
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) || errors.As(err, &netErr) || pgconn.Timeout(err) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, puddle.ErrClosedPool)
}

func fromPgError(op string, pgErr *pgconn.PgError, err error) error {
	entity := entities[pgErr.TableName]
	if entity == "" {
		entity = "record"
	}
	field := fieldOf(pgErr)
	e := &backend.Error{Err: err}
	switch code := pgErr.Code; {
	case code == "23505": // unique_violation
		e.Code, e.Message = backend.CodeConflict, conflictMessage(entity, field)
	case code == "23503": // foreign_key_violation
		target := referenced[field]
		if target == "" {
			target = "record"
		}
		e.Code, e.Message = backend.CodeNotFound, "the referenced "+target+" does not exist"
	case code == "23514", code == "23502": // check_violation, not_null_violation
		e.Code, e.Message = backend.CodeInvalidArgument, "invalid "+field+" for "+entity
		e.Hint = "send " + field + " with a value the " + entity + " accepts (non-empty, within its limits)"
	case strings.HasPrefix(code, "22"): // data exceptions: bad uuid, value too long, …
		e.Code, e.Message = backend.CodeInvalidArgument, "invalid value"
		e.Hint = "ids are UUIDs or the prefixed ids the deck showed; names and texts have length limits"
	case code == "40001", code == "40P01": // serialization failure, deadlock
		e.Code, e.Message, e.Hint = backend.CodeConflict, "a concurrent change got in the way", "retry"
	case strings.HasPrefix(code, "08"), strings.HasPrefix(code, "53"), strings.HasPrefix(code, "57P"):
		return unavailable(err)
	default:
		return backend.Internal(op, err)
	}
	if field != "" {
		e.WithDetail("field", field)
	}
	return e
}

func conflictMessage(entity, field string) string {
	switch field {
	case "card_id":
		return "the card is already on the deck"
	case "position":
		return "two cards of one type cannot share a position on a deck"
	case "":
		return "the " + entity + " already exists"
	}
	return "a " + entity + " with this " + field + " already exists"
}

// fieldOf names the field a constraint guards.
func fieldOf(pgErr *pgconn.PgError) string {
	if f, ok := constraintFields[pgErr.ConstraintName]; ok {
		return f
	}
	if pgErr.ColumnName != "" {
		return pgErr.ColumnName
	}
	name := strings.TrimPrefix(pgErr.ConstraintName, pgErr.TableName+"_")
	for _, suffix := range []string{"_check", "_key", "_fkey"} {
		name = strings.TrimSuffix(name, suffix)
	}
	return name
}

// notFound is the error for a lookup that matched nothing.
func notFound(entity, ref string) *backend.Error {
	if len(ref) > 80 {
		ref = ref[:77] + "..."
	}
	return backend.Errorf(backend.CodeNotFound, "%s %q not found", entity, ref)
}

// rowErr classifies a single-row query error, turning "no rows" into NOT_FOUND for ref.
func rowErr(op, entity, ref string, err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return notFound(entity, ref)
	}
	return classify(op, err)
}

// execOne runs a statement that must touch the row of entity ref: touching none is NOT_FOUND.
func (s *Store) execOne(ctx context.Context, op, entity, ref, q string, args ...any) error {
	tag, err := s.db.Exec(ctx, q, args...)
	if err != nil {
		return classify(op, err)
	}
	if tag.RowsAffected() == 0 {
		return notFound(entity, ref)
	}
	return nil
}
