package core

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"

	"github.com/agent-deck/agent-deck/backend"
)

// WorkspacePinFile is where `agent-deck use` pins a project to a deck, relative to the project
// root: {"deck_id": …, "deck_name": …}.
const WorkspacePinFile = ".agent-deck/use.json"

// maxPinFileBytes bounds what is read of a pin file; a real one is under 200 bytes.
const maxPinFileBytes = 64 << 10

// RootsBinding is what BindFromRoots did: the binding, and whether this call made it.
type RootsBinding struct {
	Binding
	// BoundNow is true when the roots bound the session now; false when it was bound already
	// (bind_workspace wins) or no root named a deck.
	BoundNow bool
	// Root is the root that named the deck, and Source how: "pin" (the project's
	// WorkspacePinFile) or "workspace" (a live session bound at or above it).
	Root, Source string
}

// BindFromRoots binds a session that has no deck yet to the deck its client's roots name: the
// first root (an absolute path) that is pinned to a deck with `agent-deck use`, or that lies in
// a workspace another live session is bound to. A session already bound keeps its deck, so an
// explicit bind_workspace always wins, whichever comes first.
func (s *Hub) BindFromRoots(ctx context.Context, sessionID string, roots []string) (RootsBinding, error) {
	if _, err := backend.RequireRead(ctx, "bind a session"); err != nil {
		return RootsBinding{}, err
	}
	// Read fresh, not the copy the request that started this carried: the answer may come long
	// after, when bind_workspace has bound the session.
	sess, err := s.LookupSession(ctx, sessionID)
	if err != nil {
		return RootsBinding{}, err
	}
	if sess.DeckID != "" {
		b, err := s.binding(ctx, sess)
		return RootsBinding{Binding: b}, err
	}
	for _, root := range roots {
		ws, err := cleanWorkspace(root, false)
		if err != nil {
			continue
		}
		d, source, err := s.deckForRoot(ctx, sess.ID, ws)
		if err != nil {
			return RootsBinding{}, err
		}
		if d.ID == "" {
			continue
		}
		sess.WorkspaceRoot, sess.DeckID, sess.DeckName = ws, d.ID, d.Name
		sess.LastSeenAt = s.clock()
		now, err := s.store.BindUnboundSession(ctx, &sess)
		if err != nil {
			return RootsBinding{}, backend.StoreErr("binding a session", err)
		}
		if !now {
			if sess, err = s.LookupSession(ctx, sessionID); err != nil {
				return RootsBinding{}, err
			}
		}
		b, err := s.binding(ctx, sess)
		return RootsBinding{Binding: b, BoundNow: now, Root: ws, Source: source}, err
	}
	b, err := s.binding(ctx, sess)
	return RootsBinding{Binding: b}, err
}

// deckForRoot finds the deck a root names: its pin file first, then the nearest live session
// bound at or above it. No deck is a zero Deck, not an error.
func (s *Hub) deckForRoot(ctx context.Context, self, ws string) (backend.Deck, string, error) {
	for _, ref := range readWorkspacePin(ws) {
		d, err := s.deckByRef(ctx, s.store, ref)
		if err == nil {
			return d, "pin", nil
		}
		if !backend.IsNotFound(err) {
			return backend.Deck{}, "", err
		}
	}
	live, err := s.liveSessions(ctx)
	if err != nil {
		return backend.Deck{}, "", err
	}
	best, bestDepth := "", -1
	for _, x := range live {
		if x.ID == self || x.DeckID == "" {
			continue
		}
		if depth, ok := workspaceDepth(x.WorkspaceRoot, ws); ok && depth > bestDepth {
			best, bestDepth = x.DeckID, depth
		}
	}
	if best == "" {
		return backend.Deck{}, "", nil
	}
	d, err := s.store.GetDeck(ctx, best)
	if backend.IsNotFound(err) {
		return backend.Deck{}, "", nil
	}
	if err != nil {
		return backend.Deck{}, "", backend.StoreErr("finding a deck", err)
	}
	return d, "workspace", nil
}

// readWorkspacePin returns the deck a project's pin file names: its id, then its name (the deck
// may have been recreated since), none when there is no readable pin. Only that one small file
// is read.
func readWorkspacePin(ws string) []string {
	f, err := os.Open(filepath.Join(filepath.FromSlash(ws), filepath.FromSlash(WorkspacePinFile)))
	if err != nil {
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxPinFileBytes))
	if err != nil {
		return nil
	}
	var pin struct {
		DeckID   string `json:"deck_id"`
		DeckName string `json:"deck_name"`
	}
	if json.Unmarshal(data, &pin) != nil {
		return nil
	}
	var refs []string
	for _, r := range []string{pin.DeckID, pin.DeckName} {
		if r != "" {
			refs = append(refs, r)
		}
	}
	return refs
}
