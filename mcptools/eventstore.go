package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/mark3labs/mcp-go/server"
)

// eventsPerSession bounds how many SSE messages a session can replay after a broken stream.
const eventsPerSession = 64

// eventStore keeps the last few SSE messages of each session so a client whose stream broke
// can resume, without letting a long session grow memory without bound.
type eventStore struct {
	mu       sync.Mutex
	seq      int64
	limit    int
	sessions map[string][]storedEvent
}

type storedEvent struct {
	id     string
	stream string
	msg    json.RawMessage
}

var _ server.EventStore = (*eventStore)(nil)

func newEventStore(limit int) *eventStore {
	return &eventStore{limit: limit, sessions: map[string][]storedEvent{}}
}

// StoreEvent records a message and returns its id; the session's oldest event is dropped past
// the limit.
func (s *eventStore) StoreEvent(_ context.Context, sessionID, streamID string, message json.RawMessage) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	id := strconv.FormatInt(s.seq, 10)
	evs := append(s.sessions[sessionID], storedEvent{id: id, stream: streamID,
		msg: append(json.RawMessage(nil), message...)})
	if len(evs) > s.limit {
		evs = append(evs[:0:0], evs[len(evs)-s.limit:]...)
	}
	s.sessions[sessionID] = evs
	return id, nil
}

// ReplayEventsAfter sends the events after lastEventID on the same stream, oldest first.
func (s *eventStore) ReplayEventsAfter(_ context.Context, sessionID, lastEventID string, send func(eventID string, message json.RawMessage) error) (string, error) {
	s.mu.Lock()
	evs := s.sessions[sessionID]
	at := -1
	for i, e := range evs {
		if e.id == lastEventID {
			at = i
			break
		}
	}
	if at < 0 {
		s.mu.Unlock()
		return "", fmt.Errorf("%w: %s", server.ErrUnknownEventID, lastEventID)
	}
	stream := evs[at].stream
	var tail []storedEvent
	for _, e := range evs[at+1:] {
		if e.stream == stream {
			tail = append(tail, e)
		}
	}
	s.mu.Unlock()
	for _, e := range tail {
		if err := send(e.id, e.msg); err != nil {
			return "", err
		}
	}
	return stream, nil
}

// PurgeSession forgets a session's events.
func (s *eventStore) PurgeSession(_ context.Context, sessionID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, sessionID)
	return nil
}
