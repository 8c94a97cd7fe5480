package cli

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agent-deck/agent-deck/backend/ratelimit"
)

// rateLimitCollector reports this replica's rate limiting: calls refused by scope (token, or
// service on a deck) and limit, round trips to the shared buckets and their failures, and the
// keys it holds state for. Labels come from fixed sets.
type rateLimitCollector struct {
	lim                    *ratelimit.Limiter
	refused, syncs, errors *prometheus.Desc
	buckets                *prometheus.Desc
}

func newRateLimitCollector(lim *ratelimit.Limiter) *rateLimitCollector {
	d := prometheus.NewDesc
	return &rateLimitCollector{lim: lim,
		refused: d("agent_deck_rate_limited_total", "Proxied calls refused with RATE_LIMITED, by scope (token, service) and limit (calls_per_minute, concurrent_calls).",
			[]string{"scope", "limit"}, nil),
		syncs:   d("agent_deck_rate_limit_syncs_total", "Round trips to the rate buckets the replicas share in PostgreSQL.", nil, nil),
		errors:  d("agent_deck_rate_limit_sync_errors_total", "Round trips to the shared rate buckets that failed (the replica then limits on its own view).", nil, nil),
		buckets: d("agent_deck_rate_limit_keys", "Tokens and (deck, service) pairs this replica holds rate limit state for.", nil, nil),
	}
}

func (c *rateLimitCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.refused, c.syncs, c.errors, c.buckets} {
		ch <- d
	}
}

func (c *rateLimitCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.lim.Stats()
	for _, r := range []struct {
		scope ratelimit.Scope
		limit string
		n     int64
	}{
		{ratelimit.ScopeToken, ratelimit.LimitCallsPerMinute, st.TokenRate.Load()},
		{ratelimit.ScopeToken, ratelimit.LimitConcurrentCalls, st.TokenConcurrent.Load()},
		{ratelimit.ScopeService, ratelimit.LimitCallsPerMinute, st.ServiceRate.Load()},
		{ratelimit.ScopeService, ratelimit.LimitConcurrentCalls, st.ServiceConcurrent.Load()},
	} {
		ch <- prometheus.MustNewConstMetric(c.refused, prometheus.CounterValue, float64(r.n), string(r.scope), r.limit)
	}
	ch <- prometheus.MustNewConstMetric(c.syncs, prometheus.CounterValue, float64(st.Syncs.Load()))
	ch <- prometheus.MustNewConstMetric(c.errors, prometheus.CounterValue, float64(st.SyncErrors.Load()))
	ch <- prometheus.MustNewConstMetric(c.buckets, prometheus.GaugeValue, float64(c.lim.Buckets()))
}
