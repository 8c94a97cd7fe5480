package core

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// ToolCallStatsFilter selects what ToolCallStats counts, from the tool-call audit trail.
type ToolCallStatsFilter struct {
	Service, Deck, Tool string
	// Since and Until bound the period (default: the last 24 hours).
	Since, Until time.Time
	// Bucket is the length of one time bucket; 0 picks one that gives at most 48 buckets.
	Bucket time.Duration
	// GroupBy is "service" (default) or "tool" (per service and tool).
	GroupBy string
}

// ToolCallStats is what the dashboard's charts draw: per group, the calls, failures and latency
// over the period and per time bucket.
type ToolCallStats struct {
	Since         time.Time        `json:"since"`
	Until         time.Time        `json:"until"`
	BucketSeconds int              `json:"bucket_seconds"`
	GroupBy       string           `json:"group_by"`
	Series        []ToolCallSeries `json:"series"`
	// MoreSeries counts the groups left out beyond the busiest MaxStatsSeries.
	MoreSeries int `json:"more_series,omitempty"`
}

// ToolCallSeries is one group's figures: the whole period, then each bucket that had calls.
type ToolCallSeries struct {
	backend.ToolCallBucket
	Buckets []backend.ToolCallBucket `json:"buckets"`
}

// Bounds of the charts' queries.
const (
	MaxStatsSeries  = 20
	maxStatsBuckets = 500
	maxStatsPeriod  = 92 * 24 * time.Hour
	minStatsBucket  = time.Minute
)

// bucketLadder are the bucket lengths chosen automatically, shortest first.
var bucketLadder = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour,
	3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour}

// ToolCallStats counts the tool-call audit trail per service (or tool) and time bucket: calls,
// failures, and the median and 95th percentile latency. Admin only, as the trail is.
func (s *Hub) ToolCallStats(ctx context.Context, f ToolCallStatsFilter) (ToolCallStats, error) {
	if _, err := backend.RequireAdmin(ctx, "read the tool-call audit trail"); err != nil {
		return ToolCallStats{}, err
	}
	q, err := s.statsQuery(f)
	if err != nil {
		return ToolCallStats{}, err
	}
	rows, err := s.store.ListToolCallBuckets(ctx, q)
	if err != nil {
		return ToolCallStats{}, backend.StoreErr("counting tool calls", err)
	}
	out := ToolCallStats{Since: q.Since, Until: q.Until, BucketSeconds: int(q.Bucket.Seconds()), GroupBy: "service",
		Series: []ToolCallSeries{}}
	if q.ByTool {
		out.GroupBy = "tool"
	}
	for _, r := range rows {
		if r.At.IsZero() { // the group's row for the whole period comes before its buckets
			out.Series = append(out.Series, ToolCallSeries{ToolCallBucket: r, Buckets: []backend.ToolCallBucket{}})
			continue
		}
		if n := len(out.Series); n > 0 {
			r.Service, r.Tool = "", ""
			out.Series[n-1].Buckets = append(out.Series[n-1].Buckets, r)
		}
	}
	slices.SortStableFunc(out.Series, func(a, b ToolCallSeries) int { return cmp.Compare(b.Calls, a.Calls) })
	if len(out.Series) > MaxStatsSeries {
		out.MoreSeries = len(out.Series) - MaxStatsSeries
		out.Series = out.Series[:MaxStatsSeries]
	}
	return out, nil
}

// statsQuery checks a filter and fills its defaults.
func (s *Hub) statsQuery(f ToolCallStatsFilter) (backend.ToolCallStatsQuery, error) {
	q := backend.ToolCallStatsQuery{Service: strings.TrimSpace(f.Service), Deck: strings.TrimSpace(f.Deck),
		Tool: strings.TrimSpace(f.Tool), Since: f.Since, Until: f.Until, Bucket: f.Bucket}
	for field, v := range map[string]string{"service": q.Service, "deck": q.Deck, "tool": q.Tool} {
		if len(v) > maxAuditRefChars {
			return q, backend.Invalid(field, "at most %d characters", maxAuditRefChars)
		}
	}
	switch strings.TrimSpace(f.GroupBy) {
	case "", "service":
	case "tool":
		q.ByTool = true
	default:
		return q, backend.Invalid("group_by", "service or tool; got %s", backend.QuoteClip(f.GroupBy))
	}
	if q.Until.IsZero() {
		q.Until = s.clock()
	}
	if q.Since.IsZero() {
		q.Since = q.Until.Add(-24 * time.Hour)
	}
	period := q.Until.Sub(q.Since)
	if period <= 0 {
		return q, backend.Invalid("until", "must be after since")
	}
	if period > maxStatsPeriod {
		return q, backend.Invalid("since", "the period may span at most %d days", int(maxStatsPeriod.Hours()/24))
	}
	if q.Bucket == 0 {
		q.Bucket = bucketLadder[len(bucketLadder)-1]
		for _, b := range bucketLadder {
			if period/b <= 48 {
				q.Bucket = b
				break
			}
		}
	}
	if q.Bucket < minStatsBucket {
		return q, backend.Invalid("bucket", "at least 1m")
	}
	if period/q.Bucket > maxStatsBuckets {
		return q, backend.Invalid("bucket", "at most %d buckets in the period: choose a longer bucket or a shorter period", maxStatsBuckets)
	}
	return q, nil
}
