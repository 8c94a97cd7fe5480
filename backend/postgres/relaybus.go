package postgres

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

// relayChannel is the channel a replica is woken on when an answer is left for it; the payload
// names the replica. sessionChannel carries messages for a session's client: the session id,
// a space, the message.
const (
	relayChannel   = "agent_deck_relay"
	sessionChannel = "agent_deck_session"
)

// maxSessionMessage bounds a session message: a NOTIFY payload holds under 8,000 bytes.
const maxSessionMessage = 7000

// relayAnswerTTL is how long an answer nobody took is kept: its replica has died, and the
// request it answers with it.
const relayAnswerTTL = time.Minute

var _ backend.RelayBus = (*Store)(nil)

// PostRelayAnswer leaves an answer for its replica and wakes it, in one transaction.
func (s *Store) PostRelayAnswer(ctx context.Context, a backend.RelayAnswer) error {
	return s.transact(ctx, func(tx *Store) error {
		if _, err := tx.db.Exec(ctx, `INSERT INTO mcp_relay_answers (replica, session_id, request_id, body)
			VALUES ($1, $2, $3, $4)`, a.Replica, a.SessionID, a.RequestID, []byte(a.Body)); err != nil {
			return classify("leave an answer for another replica", err)
		}
		_, err := tx.db.Exec(ctx, `SELECT pg_notify($1, $2)`, relayChannel, a.Replica)
		return classify("wake another replica", err)
	})
}

// PostSessionMessage hands a message for a session's client to every listening replica.
func (s *Store) PostSessionMessage(ctx context.Context, sessionID string, msg json.RawMessage) error {
	if len(sessionID)+1+len(msg) > maxSessionMessage {
		return backend.Errorf(backend.CodeInvalidArgument, "a message for another replica is over %d bytes", maxSessionMessage)
	}
	_, err := s.db.Exec(ctx, `SELECT pg_notify($1, $2)`, sessionChannel, sessionID+" "+string(msg))
	return classify("pass a message to another replica", err)
}

// ListenRelay hands onAnswer each answer left for replica and onMessage each session message,
// on a listening connection of its own, reconnecting with backoff; every (re)connection first
// takes the answers left meanwhile.
func (s *Store) ListenRelay(ctx context.Context, replica string, onAnswer func(backend.RelayAnswer),
	onMessage func(string, json.RawMessage)) {
	s.listeners.Add(1)
	go func() {
		defer s.listeners.Done()
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(s.closeCtx, cancel)
		defer stop()
		wait := listenRetryMin
		for ctx.Err() == nil {
			if listened, _ := s.listenRelay(ctx, replica, onAnswer, onMessage); listened {
				wait = listenRetryMin
			}
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
			wait = min(2*wait, listenRetryMax)
		}
	}()
}

// listenRelay runs one listening connection until it fails.
func (s *Store) listenRelay(ctx context.Context, replica string, onAnswer func(backend.RelayAnswer),
	onMessage func(string, json.RawMessage)) (bool, error) {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig)
	if err != nil {
		return false, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+relayChannel+"; LISTEN "+sessionChannel); err != nil {
		return false, err
	}
	for {
		if err := s.takeAnswers(ctx, replica, onAnswer); err != nil {
			return true, err
		}
		for {
			n, err := conn.WaitForNotification(ctx)
			if err != nil {
				return true, err
			}
			if n.Channel == sessionChannel {
				if id, msg, ok := strings.Cut(n.Payload, " "); ok {
					onMessage(id, json.RawMessage(msg))
				}
				continue
			}
			if n.Payload == replica {
				break
			}
		}
	}
}

// takeAnswers deletes and hands over the answers left for replica, and sweeps answers left for
// replicas that are gone.
func (s *Store) takeAnswers(ctx context.Context, replica string, fn func(backend.RelayAnswer)) error {
	rows, err := s.db.Query(ctx, `DELETE FROM mcp_relay_answers WHERE replica = $1
		RETURNING session_id, request_id, body`, replica)
	if err != nil {
		return err
	}
	answers, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (backend.RelayAnswer, error) {
		a := backend.RelayAnswer{Replica: replica}
		var body []byte
		err := r.Scan(&a.SessionID, &a.RequestID, &body)
		a.Body = body
		return a, err
	})
	if err != nil {
		return err
	}
	for _, a := range answers {
		fn(a)
	}
	_, err = s.db.Exec(ctx, `DELETE FROM mcp_relay_answers WHERE created_at < now() - make_interval(secs => $1)`,
		relayAnswerTTL.Seconds())
	return err
}
