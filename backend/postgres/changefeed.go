package postgres

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

// changeChannel is the channel the 0002 migration's triggers notify on.
const changeChannel = "agent_deck_changes"

// Reconnect backoff of the change listener after its connection is lost.
const (
	listenRetryMin = 50 * time.Millisecond
	listenRetryMax = 2 * time.Second
)

// Subscribe listens for row changes on a dedicated connection and hands each to fn until ctx
// ends or the Store is closed. fn first receives a feed state change (Listening true) once
// LISTEN is in place; when the connection is lost it receives Listening false, and the
// listener reconnects with backoff. Changes made while not listening are never delivered, so a
// subscriber must not trust anything cached before the next Listening true.
func (s *Store) Subscribe(ctx context.Context, fn func(backend.Change)) {
	// Registered before the goroutine starts, so Close always waits for it.
	s.listeners.Add(1)
	go func() {
		defer s.listeners.Done()
		s.follow(ctx, fn)
	}()
}

// follow keeps one listening connection up, reconnecting with backoff, until ctx ends or the
// Store closes.
func (s *Store) follow(ctx context.Context, fn func(backend.Change)) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.closeCtx, cancel)
	defer stop()
	wait := listenRetryMin
	for ctx.Err() == nil {
		listened, err := s.listen(ctx, fn)
		if ctx.Err() != nil {
			break
		}
		fn(backend.Change{Listening: false})
		if listened {
			wait = listenRetryMin
		}
		_ = err // the state change above is the report; the error text may hold connection details
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(2*wait, listenRetryMax)
	}
}

// listen runs one listening connection until it fails; listened says LISTEN succeeded.
func (s *Store) listen(ctx context.Context, fn func(backend.Change)) (listened bool, err error) {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig)
	if err != nil {
		return false, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+changeChannel); err != nil {
		return false, err
	}
	fn(backend.Change{Listening: true})
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return true, err
		}
		table, id, _ := strings.Cut(n.Payload, ":")
		fn(backend.Change{Table: table, ID: id})
	}
}
