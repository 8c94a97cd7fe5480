package cli

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/audit"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/postgres"
)

// stateCollector reports, at each scrape, what is true now: live MCP sessions by profile,
// each service's health, the database pool and the audit log's counters. Sessions and health
// are read from the database (two queries per scrape), so every replica reports the same.
type stateCollector struct {
	svc   *core.Hub
	store *postgres.Store
	audit *audit.Log
	log   interface {
		Warn(msg string, args ...any)
	}

	sessions, health                     *prometheus.Desc
	poolConns, poolMax                   *prometheus.Desc
	poolAcquires, poolEmpty, poolAcquire *prometheus.Desc
	auditWritten, auditDropped           *prometheus.Desc
}

func newStateCollector(svc *core.Hub, store *postgres.Store, audit *audit.Log, log interface {
	Warn(msg string, args ...any)
}) *stateCollector {
	d := prometheus.NewDesc
	return &stateCollector{svc: svc, store: store, audit: audit, log: log,
		sessions: d("agent_deck_mcp_sessions", "Live MCP sessions (seen within the idle timeout), by profile.", []string{"profile"}, nil),
		health: d("agent_deck_downstream_health", "1 for each service's current health status (healthy, unhealthy, auth_required, unknown), 0 for the others.",
			[]string{"service", "status"}, nil),
		poolConns:    d("agent_deck_db_pool_connections", "Database pool connections, by state (idle, acquired).", []string{"state"}, nil),
		poolMax:      d("agent_deck_db_pool_max_connections", "Most connections the database pool opens.", nil, nil),
		poolAcquires: d("agent_deck_db_pool_acquires_total", "Connections handed out by the database pool.", nil, nil),
		poolEmpty:    d("agent_deck_db_pool_empty_acquires_total", "Acquires that waited because no connection was idle.", nil, nil),
		poolAcquire:  d("agent_deck_db_pool_acquire_seconds_total", "Time spent acquiring database connections.", nil, nil),
		auditWritten: d("agent_deck_audit_entries_written_total", "Tool-call audit entries stored.", nil, nil),
		auditDropped: d("agent_deck_audit_entries_dropped_total", "Tool-call audit entries lost to a full buffer or a failed write.", nil, nil),
	}
}

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.sessions, c.health, c.poolConns, c.poolMax, c.poolAcquires,
		c.poolEmpty, c.poolAcquire, c.auditWritten, c.auditDropped} {
		ch <- d
	}
}

// healthStatuses is the fixed set of the health gauge's status label.
var healthStatuses = []backend.HealthStatus{backend.HealthHealthy, backend.HealthUnhealthy,
	backend.HealthAuthRequired, backend.HealthUnknown}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(backend.WithActor(context.Background(), backend.SystemActor), 5*time.Second)
	defer cancel()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v)
	}
	if live, err := c.svc.ListSessions(ctx); err == nil {
		byProfile := map[string]int{}
		for _, s := range live {
			byProfile[s.Profile]++
		}
		for _, p := range backend.Profiles {
			gauge(c.sessions, float64(byProfile[p]), p)
		}
	} else {
		c.log.Warn("metrics: listing sessions failed", "code", backend.ErrorCode(err))
	}
	if services, err := c.svc.ListServices(ctx); err == nil {
		for _, s := range services {
			for _, st := range healthStatuses {
				v := 0.0
				if s.Health.Status == st || (st == backend.HealthUnknown && s.Health.Status == "") {
					v = 1
				}
				gauge(c.health, v, s.Name, string(st))
			}
		}
	} else {
		c.log.Warn("metrics: listing services failed", "code", backend.ErrorCode(err))
	}
	p := c.store.PoolStats()
	gauge(c.poolConns, float64(p.Idle), "idle")
	gauge(c.poolConns, float64(p.Acquired), "acquired")
	gauge(c.poolMax, float64(p.Max))
	counter(c.poolAcquires, float64(p.Acquires))
	counter(c.poolEmpty, float64(p.EmptyAcquires))
	counter(c.poolAcquire, p.AcquireSeconds)
	counter(c.auditWritten, float64(c.audit.Written()))
	counter(c.auditDropped, float64(c.audit.Dropped()))
}
