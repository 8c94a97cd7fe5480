package core

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

const maxSignalImport = 1000

// SignalImport is one feedback signal brought in from a file (a person's notes, another
// deck's export).
type SignalImport struct {
	PlaybookID string           `json:"playbook_id,omitempty"`
	Rationale  string           `json:"rationale"`
	Evidence   backend.Evidence `json:"evidence"`
}

// ListSignals returns every feedback signal, newest first. Admin only.
func (s *Hub) ListSignals(ctx context.Context) ([]backend.Signal, error) {
	if _, err := backend.RequireAdmin(ctx, "review feedback signals"); err != nil {
		return nil, err
	}
	gs, err := s.store.ListSignals(ctx)
	if err != nil {
		return nil, backend.StoreErr("listing signals", err)
	}
	return backend.OrEmpty(gs), nil
}

// DiscardSignals marks signals as discarded, all or none; ids that name no signal are
// NOT_FOUND.
func (s *Hub) DiscardSignals(ctx context.Context, ids []string) ([]backend.Signal, error) {
	if _, err := backend.RequireAdmin(ctx, "discard feedback signals"); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, backend.Invalid("ids", "must name at least one signal")
	}
	return backend.Transact(ctx, s.store, func(tx backend.Store) ([]backend.Signal, error) {
		out := make([]backend.Signal, len(ids))
		clean := make([]string, len(ids))
		for i, id := range ids {
			g, err := signalByRef(ctx, tx, id)
			if err != nil {
				return nil, err
			}
			g.Status, g.ProposalID = backend.SignalDiscarded, ""
			out[i], clean[i] = g, g.ID
		}
		if err := tx.SetSignals(ctx, clean, backend.SignalDiscarded, ""); err != nil {
			return nil, backend.StoreErr("discarding signals", err)
		}
		return out, nil
	})
}

// ImportSignals records signals in bulk, all or none.
func (s *Hub) ImportSignals(ctx context.Context, in []SignalImport) ([]backend.Signal, error) {
	if _, err := backend.RequireAdmin(ctx, "import feedback signals"); err != nil {
		return nil, err
	}
	if len(in) == 0 || len(in) > maxSignalImport {
		return nil, backend.Invalid("signals", "must hold 1 to %d signals, got %d", maxSignalImport, len(in))
	}
	return backend.Transact(ctx, s.store, func(tx backend.Store) ([]backend.Signal, error) {
		out := make([]backend.Signal, len(in))
		for i, x := range in {
			g, err := s.importedSignal(ctx, tx, i, x)
			if err != nil {
				return nil, err
			}
			g.CreatedAt = s.clock()
			if err := tx.CreateSignal(ctx, &g); err != nil {
				return nil, backend.StoreErr("recording a signal", err)
			}
			out[i] = g
		}
		return out, nil
	})
}

func (s *Hub) importedSignal(ctx context.Context, tx backend.Store, i int, x SignalImport) (backend.Signal, error) {
	g := backend.Signal{Status: backend.SignalOpen}
	var err error
	if g.Rationale, err = cleanRequired(fmt.Sprintf("signals[%d].rationale", i), x.Rationale, maxRationaleChars); err != nil {
		return g, err
	}
	if g.Evidence, err = cleanEvidence(x.Evidence); err != nil {
		return g, err
	}
	maskLearning(s.heldMask(), &g.Rationale, &g.Evidence, nil)
	if ref := strings.TrimSpace(x.PlaybookID); ref != "" {
		p, err := backend.PlaybookByRef(ctx, tx, ref)
		if err != nil {
			return g, err
		}
		g.PlaybookID = p.ID
	}
	return g, nil
}

// signalByRef loads and locks a signal by its id or the unique start of its id.
func signalByRef(ctx context.Context, tx backend.Store, ref string) (backend.Signal, error) {
	ref = strings.TrimSpace(ref)
	g, err := tx.GetSignal(ctx, ref)
	if !backend.IsNotFound(err) {
		return g, err
	}
	id, perr := backend.ResolveIDPrefix(ctx, tx, backend.IDSignal, ref)
	if perr != nil || id == "" {
		return g, cmp.Or(perr, err)
	}
	return tx.GetSignal(ctx, id)
}
