package core

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash"

	"github.com/agent-deck/agent-deck/backend"
)

// SessionSurface is what an MCP session sees that can change under it, as fingerprints: its
// projected tools, its resource list (the deck, its playbooks and services) and its prompt list
// (the deck's services). The MCP front end compares them after every change to tell the
// session's client what to list again.
type SessionSurface struct {
	Tools     string
	Resources string
	Prompts   string
}

// PeekSession reads a live session without refreshing its last-seen time: for the server's own
// housekeeping, which must not keep a session alive.
func (s *Hub) PeekSession(ctx context.Context, id string) (backend.MCPSession, error) {
	sess, _, err := s.liveSession(ctx, id)
	if err != nil {
		return backend.MCPSession{}, err
	}
	if sess.TerminatedAt != nil {
		return backend.MCPSession{}, sessionGone()
	}
	return sess, nil
}

// SessionSurface fingerprints what sess sees, as its own token would see it.
func (s *Hub) SessionSurface(ctx context.Context, sess backend.MCPSession) (SessionSurface, error) {
	if sess.DeckID == "" {
		return SessionSurface{}, nil
	}
	ctx = WithSession(backend.WithActor(ctx, backend.Actor{Scope: sess.Scope, Kind: backend.ActorAgent,
		TokenID: sess.TokenID}), sess)
	d, err := s.deckByRefCached(ctx, sess.DeckID)
	if backend.IsNotFound(err) {
		return SessionSurface{}, nil
	}
	if err != nil {
		return SessionSurface{}, err
	}
	v, err := s.deckViews(ctx, d)
	if err != nil {
		return SessionSurface{}, err
	}
	services := sha256.New()
	hashParts(services, d.ID)
	for _, r := range v.records {
		hashParts(services, r.ID, r.Name)
	}
	resources := sha256.New()
	hashParts(resources, d.ID, d.Name, hexSum(services))
	for _, p := range v.playbooks {
		hashParts(resources, p.ID, p.Title)
	}
	out := SessionSurface{Resources: hexSum(resources), Prompts: hexSum(services)}
	proj, err := s.ProjectedTools(ctx, sess.ID)
	if err != nil {
		return out, err
	}
	if len(proj.Tools) > 0 {
		tools := sha256.New()
		for _, t := range proj.Tools {
			b, _ := json.Marshal(t)
			tools.Write(b)
		}
		out.Tools = hexSum(tools)
	}
	return out, nil
}

func hashParts(h hash.Hash, parts ...string) {
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
}

func hexSum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

// ResourceSubscribers returns the live sessions subscribed to a playbook's resource.
func (s *Hub) ResourceSubscribers(ctx context.Context, playbookID string) ([]backend.ResourceSubscription, error) {
	if _, err := backend.RequireRead(ctx, "read resource subscriptions"); err != nil {
		return nil, err
	}
	subs, err := s.store.ResourceSubscribers(ctx, playbookID)
	if err != nil {
		return nil, backend.StoreErr("reading resource subscriptions", err)
	}
	return subs, nil
}
