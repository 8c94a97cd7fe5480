package postgres

import (
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/agent-deck/agent-deck/backend"
)

// hasParam reports whether a connection string sets the named parameter.
func hasParam(url, name string) bool {
	return strings.Contains(url, name+"=")
}

// nullString maps "" to SQL NULL (optional references such as deck_id).
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nullTime maps the zero time to SQL NULL, so the database's now() fills it.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

// strs never returns nil: text[] columns are NOT NULL and JSON shows [] rather than null.
func strs(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// strMap never returns nil, for NOT NULL jsonb object columns.
func strMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// asUUID returns the canonical form of s when it is a uuid, "" otherwise. Ids of decks,
// services and tokens are uuids; any other string can only be a name.
func asUUID(s string) string {
	if backend.IsUUIDText(s) && strings.ToLower(s) == s {
		return s // already as uuid.UUID.String writes it: no parse and copy per audit entry
	}
	u, err := uuid.Parse(s)
	if err != nil {
		return ""
	}
	return u.String()
}
