package postgres

// PoolStats is a snapshot of the connection pool, for metrics.
type PoolStats struct {
	Total, Idle, Acquired, Max int32
	// Acquires counts connections handed out since start; EmptyAcquires those that had to
	// wait because none was idle; AcquireSeconds is the total time spent acquiring.
	Acquires, EmptyAcquires int64
	AcquireSeconds          float64
}

// PoolStats reads the pool's counters without I/O.
func (s *Store) PoolStats() PoolStats {
	st := s.pool.Stat()
	return PoolStats{Total: st.TotalConns(), Idle: st.IdleConns(), Acquired: st.AcquiredConns(), Max: st.MaxConns(),
		Acquires: st.AcquireCount(), EmptyAcquires: st.EmptyAcquireCount(), AcquireSeconds: st.AcquireDuration().Seconds()}
}
