package backend

import (
	"context"
	"fmt"
	"strings"
)

const maxSignalImport = 1000

// SignalImport is one feedback signal brought in from a file (a person's notes, another
// deck's export).
type SignalImport struct {
	PlaybookID string   `json:"playbook_id,omitempty"`
	Rationale  string   `json:"rationale"`
	Evidence   Evidence `json:"evidence"`
}

// ListSignals returns every feedback signal, newest first. Admin only.
func (s *Service) ListSignals(ctx context.Context) ([]Signal, error) {
	if _, err := requireAdmin(ctx, "review feedback signals"); err != nil {
		return nil, err
	}
	gs, err := s.store.ListSignals(ctx)
	if err != nil {
		return nil, storeErr("listing signals", err)
	}
	return orEmpty(gs), nil
}

// DiscardSignals marks signals as discarded, all or none; ids that name no signal are
// NOT_FOUND.
func (s *Service) DiscardSignals(ctx context.Context, ids []string) ([]Signal, error) {
	if _, err := requireAdmin(ctx, "discard feedback signals"); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, invalid("ids", "must name at least one signal")
	}
	return transact(ctx, s.store, func(tx Store) ([]Signal, error) {
		out := make([]Signal, len(ids))
		clean := make([]string, len(ids))
		for i, id := range ids {
			g, err := tx.GetSignal(ctx, strings.TrimSpace(id))
			if err != nil {
				return nil, err
			}
			g.Status, g.ProposalID = SignalDiscarded, ""
			out[i], clean[i] = g, g.ID
		}
		if err := tx.SetSignals(ctx, clean, SignalDiscarded, ""); err != nil {
			return nil, storeErr("discarding signals", err)
		}
		return out, nil
	})
}

// ImportSignals records signals in bulk, all or none.
func (s *Service) ImportSignals(ctx context.Context, in []SignalImport) ([]Signal, error) {
	if _, err := requireAdmin(ctx, "import feedback signals"); err != nil {
		return nil, err
	}
	if len(in) == 0 || len(in) > maxSignalImport {
		return nil, invalid("signals", "must hold 1 to %d signals, got %d", maxSignalImport, len(in))
	}
	return transact(ctx, s.store, func(tx Store) ([]Signal, error) {
		out := make([]Signal, len(in))
		for i, x := range in {
			g, err := importedSignal(ctx, tx, i, x)
			if err != nil {
				return nil, err
			}
			g.CreatedAt = s.clock()
			if err := tx.CreateSignal(ctx, &g); err != nil {
				return nil, storeErr("recording a signal", err)
			}
			out[i] = g
		}
		return out, nil
	})
}

func importedSignal(ctx context.Context, tx Store, i int, x SignalImport) (Signal, error) {
	g := Signal{Status: SignalOpen}
	var err error
	if g.Rationale, err = cleanRequired(fmt.Sprintf("signals[%d].rationale", i), x.Rationale, maxRationaleChars); err != nil {
		return g, err
	}
	if g.Evidence, err = cleanEvidence(x.Evidence); err != nil {
		return g, err
	}
	if ref := strings.TrimSpace(x.PlaybookID); ref != "" {
		p, err := playbookByRef(ctx, tx, ref)
		if err != nil {
			return g, err
		}
		g.PlaybookID = p.ID
	}
	return g, nil
}
