package audit

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// AuditLog writes tool calls to the Store off the call path: RecordToolCall only puts the entry
// in a bounded buffer (dropping, and counting, what does not fit), and Run writes batches in one
// round trip each and prunes entries older than the retention.
type Log struct {
	store   backend.Store
	log     *slog.Logger
	cfg     Config
	entries chan backend.ToolCall
	dropped atomic.Int64
	written atomic.Int64
}

// AuditConfig sizes the audit log; the zero value takes the defaults.
type Config struct {
	// Retention is how long entries are kept (AGENT_DECK_AUDIT_RETENTION, default 30 days).
	Retention time.Duration
	// Buffer is how many entries may wait to be written (default 2048).
	Buffer int
	// Batch is the most entries written in one round trip (default 256).
	Batch int
	// PruneEvery is how often old entries are deleted (default 1 h).
	PruneEvery time.Duration
	// Linger is how long a batch waits for more entries once one arrived (default 50 ms): under
	// load that turns a commit per call into a few per second, the database's largest share
	// of a proxied call.
	Linger time.Duration
}

// Defaults of AuditConfig.
const (
	DefaultAuditRetention = 30 * 24 * time.Hour
	defaultAuditBuffer    = 2048
	defaultAuditBatch     = 256
	defaultAuditPrune     = time.Hour
	defaultAuditLinger    = 50 * time.Millisecond
)

// NewAuditLog builds the writer; the composition root runs Run for the server's lifetime.
func New(store backend.Store, log *slog.Logger, cfg Config) *Log {
	if cfg.Retention <= 0 {
		cfg.Retention = DefaultAuditRetention
	}
	if cfg.Buffer <= 0 {
		cfg.Buffer = defaultAuditBuffer
	}
	if cfg.Batch <= 0 {
		cfg.Batch = defaultAuditBatch
	}
	if cfg.PruneEvery <= 0 {
		cfg.PruneEvery = defaultAuditPrune
	}
	if cfg.Linger <= 0 {
		cfg.Linger = defaultAuditLinger
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Log{store: store, log: log, cfg: cfg, entries: make(chan backend.ToolCall, cfg.Buffer)}
}

// RecordToolCall queues tc without blocking; a full buffer drops it and counts the drop.
func (l *Log) RecordToolCall(tc backend.ToolCall) {
	select {
	case l.entries <- tc:
	default:
		l.dropped.Add(1)
	}
}

// Dropped counts entries lost to a full buffer or a failed write since start.
func (l *Log) Dropped() int64 { return l.dropped.Load() }

// Written counts entries stored since start.
func (l *Log) Written() int64 { return l.written.Load() }

// Run writes queued entries until ctx ends, then writes what is still queued (bounded by
// flushTimeout) and returns.
func (l *Log) Run(ctx context.Context) {
	prune := time.NewTicker(l.cfg.PruneEvery)
	defer prune.Stop()
	l.prune(ctx)
	batch := make([]backend.ToolCall, 0, l.cfg.Batch)
	linger := time.NewTimer(l.cfg.Linger)
	linger.Stop()
	for {
		select {
		case <-ctx.Done():
			l.drain(batch)
			return
		case <-prune.C:
			l.prune(ctx)
		case tc := <-l.entries:
			batch = l.fill(append(batch[:0], tc))
			if len(batch) < l.cfg.Batch {
				batch = l.linger(ctx, linger, batch)
			}
			l.write(ctx, batch)
		}
	}
}

// linger adds the entries that arrive within the linger time, up to one batch.
func (l *Log) linger(ctx context.Context, t *time.Timer, batch []backend.ToolCall) []backend.ToolCall {
	t.Reset(l.cfg.Linger)
	defer t.Stop()
	for len(batch) < l.cfg.Batch {
		select {
		case tc := <-l.entries:
			batch = append(batch, tc)
		case <-t.C:
			return batch
		case <-ctx.Done():
			return batch
		}
	}
	return batch
}

// fill takes whatever else is already queued, up to one batch.
func (l *Log) fill(batch []backend.ToolCall) []backend.ToolCall {
	for len(batch) < l.cfg.Batch {
		select {
		case tc := <-l.entries:
			batch = append(batch, tc)
		default:
			return batch
		}
	}
	return batch
}

const flushTimeout = 5 * time.Second

// drain writes the entries still queued at shutdown.
func (l *Log) drain(batch []backend.ToolCall) {
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	for {
		batch = l.fill(batch[:0])
		if len(batch) == 0 || ctx.Err() != nil {
			return
		}
		l.write(ctx, batch)
	}
}

// write stores a batch in one round trip; when that fails, entry by entry, so one entry the
// database refuses does not cost the others.
func (l *Log) write(ctx context.Context, batch []backend.ToolCall) {
	err := l.store.InsertToolCalls(ctx, batch)
	if err == nil {
		l.written.Add(int64(len(batch)))
		return
	}
	lost := 0
	for i := range batch {
		if len(batch) == 1 || l.store.InsertToolCalls(ctx, batch[i:i+1]) != nil {
			lost++
			continue
		}
		l.written.Add(1)
	}
	l.dropped.Add(int64(lost))
	l.log.WarnContext(ctx, "tool-call audit entries lost", "count", lost, "code", backend.ErrorCode(err))
}

func (l *Log) prune(ctx context.Context) {
	n, err := l.store.PruneToolCalls(ctx, time.Now().Add(-l.cfg.Retention))
	if err != nil {
		if ctx.Err() == nil {
			l.log.WarnContext(ctx, "pruning the tool-call audit trail failed", "code", backend.ErrorCode(err))
		}
		return
	}
	if n > 0 {
		l.log.InfoContext(ctx, "pruned the tool-call audit trail", "deleted", n, "retention", l.cfg.Retention.String())
	}
}
