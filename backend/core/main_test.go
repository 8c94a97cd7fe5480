package core_test

import (
	"testing"

	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// TestMain is the one TestMain of package backend_test: one PostgreSQL cluster per test binary,
// a fresh database per test (pgtest.NewStore).
func TestMain(m *testing.M) {
	pgtest.Main(m)
}
