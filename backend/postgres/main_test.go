package postgres_test

import (
	"testing"

	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }
