package core

import (
	"context"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// Review that agents cannot skip. A deck may require that an agent token's playbook writes
// (update_playbook, register_playbook, REST PATCH, POST and restore) become proposals in the
// learning loop's queue, which a person accepts, instead of taking effect: text an agent read
// from an untrusted page then cannot reach every later agent unseen. Whatever the setting, a
// playbook's exec and skill (what agents and harnesses run) are changed by admins only.

// writeOrigin says where an agent's playbook write came from, for the proposal it may become:
// its MCP session (client and bound deck), or nothing over REST.
type writeOrigin struct {
	sessionID, clientName, deckID string
}

func originOf(sess backend.MCPSession) writeOrigin {
	return writeOrigin{sessionID: sess.ID, clientName: sess.ClientName, deckID: sess.DeckID}
}

// requireAdminToRun refuses anyone but an admin a change to exec or skill: agents run the one
// and load the other, so a changed value runs on every machine whose agent follows the playbook.
func requireAdminToRun(ctx context.Context, a backend.Actor, cur, next backend.Playbook) error {
	if a.IsAdmin() {
		return nil
	}
	var fields []string
	if next.Exec != cur.Exec {
		fields = append(fields, "exec")
	}
	if next.Skill != cur.Skill {
		fields = append(fields, "skill")
	}
	if len(fields) == 0 {
		return nil
	}
	return backend.Errorf(backend.CodeForbidden,
		"only an admin sets a playbook's %s: agents and harnesses run it, so an agent token may not change it",
		strings.Join(fields, " and ")).
		WithDetail("field", fields[0]).
		WithHint(backend.InWordsOf(ctx,
			"leave exec and skill out of the request, or send it with an admin token",
			"leave exec and skill out; tell the user the command, and they set it with an admin token (the dashboard, or PATCH /api/v1/playbooks/{playbook})"))
}

// reviewRequired says whether an agent's playbook write is held for review: never an admin's;
// a change to a playbook when any deck holding it requires review; a new playbook when the deck
// it goes on does. A playbook on no deck, and a deck without its own setting, follow the
// server's default.
func (s *Hub) reviewRequired(ctx context.Context, st backend.Store, a backend.Actor, playbookID, deckID string) (bool, error) {
	if a.IsAdmin() {
		return false, nil
	}
	if a.Scope == backend.ScopeAdmin {
		// A member's own token on their own surface: their writes to their own playbooks (or
		// to a deck of theirs) are a person's; to another person's they are reviewed.
		own, err := ownsWriteTarget(ctx, st, a, playbookID, deckID)
		if err != nil || own {
			return false, err
		}
	}
	if playbookID != "" {
		held, err := st.PlaybookReviewRequired(ctx, playbookID, s.cfg.PlaybookReview)
		return held, backend.StoreErr("reading the review setting", err)
	}
	if deckID == "" {
		return s.cfg.PlaybookReview, nil
	}
	own, err := st.DeckPlaybookReview(ctx, deckID)
	if err != nil || own == nil {
		return s.cfg.PlaybookReview, backend.StoreErr("reading the review setting", err)
	}
	return *own, nil
}

// heldNext tells the agent what happens to a held change.
func heldNext(id string) string {
	return "Held for review: a deck holding this playbook requires a person to accept agents' changes " +
		"(agent-deck proposal show " + id + "). The playbook stays as it is until then."
}

// holdEdit records an agent's change to cur as an open proposal instead of making it.
func (s *Hub) holdEdit(ctx context.Context, tx backend.Store, a backend.Actor, o writeOrigin, cur backend.Playbook,
	edit backend.PlaybookEdit, rationale string) (PlaybookResult, error) {
	maskEdit(s.heldMask(), &edit)
	p := backend.Proposal{Status: backend.ProposalOpen, Kind: backend.ProposalUpdate, PlaybookID: cur.ID, DeckID: o.deckID,
		Ops: []backend.PlaybookOp{}, Edit: &edit, Rationale: rationale, SessionID: o.sessionID, ClientName: o.clientName,
		TokenID: a.TokenID, Supersedes: []string{}}
	if err := s.createHeldProposal(ctx, tx, a, &p); err != nil {
		return PlaybookResult{}, err
	}
	return PlaybookResult{Playbook: playbookView(cur), Warnings: []Warning{}, UnknownDependencies: []string{},
		Proposal: &p, Next: heldNext(p.ID)}, nil
}

// holdCreate records an agent's new playbook as an open create proposal for the deck it
// would go on; accepting it creates the playbook and links it there.
func (s *Hub) holdCreate(ctx context.Context, st backend.Store, a backend.Actor, o writeOrigin, deckID string,
	in backend.PlaybookInput, np backend.Playbook) (PlaybookResult, error) {
	if _, err := backend.PlaybookByRef(ctx, st, np.Title); err == nil {
		return PlaybookResult{}, backend.Errorf(backend.CodeConflict, "a playbook titled %q exists", np.Title).
			WithDetail("field", "title").WithHint("choose another title, or change that playbook")
	}
	in.Exec, in.Skill = "", ""
	maskPlaybookInput(s.heldMask(), &in)
	p := backend.Proposal{Status: backend.ProposalOpen, Kind: backend.ProposalCreate, DeckID: deckID,
		Ops: []backend.PlaybookOp{}, NewPlaybook: &in, Rationale: "a new playbook an agent registered, held for review",
		SessionID: o.sessionID, ClientName: o.clientName, TokenID: a.TokenID, Supersedes: []string{}}
	if err := s.createHeldProposal(ctx, st, a, &p); err != nil {
		return PlaybookResult{}, err
	}
	return PlaybookResult{Playbook: playbookView(np), Warnings: []Warning{}, UnknownDependencies: []string{},
		Proposal: &p, Next: heldNext(p.ID)}, nil
}

// createHeldProposal stores an agent's held write as an open proposal, within its token's bound.
func (s *Hub) createHeldProposal(ctx context.Context, st backend.Store, a backend.Actor, p *backend.Proposal) error {
	if err := roomToRecord(ctx, st, a, recordProposal, 0); err != nil {
		return err
	}
	p.CreatedAt = s.clock()
	return backend.StoreErr("recording a proposal", st.CreateProposal(ctx, p))
}

// editOf is the reviewable part of a patch: everything but exec and skill.
func editOf(in PlaybookPatch) backend.PlaybookEdit {
	return backend.PlaybookEdit{Title: in.Title, Body: in.Body, Triggers: in.Triggers,
		DependsOnCredentialIDs: in.DependsOnCredentialIDs, DependsOnServiceIDs: in.DependsOnServiceIDs,
		AutoDetectDependencies: in.AutoDetectDependencies}
}

// patchOf is a held edit as a patch, to apply at accept.
func patchOf(e backend.PlaybookEdit) PlaybookPatch {
	return PlaybookPatch{Title: e.Title, Body: e.Body, Triggers: e.Triggers,
		DependsOnCredentialIDs: e.DependsOnCredentialIDs, DependsOnServiceIDs: e.DependsOnServiceIDs,
		AutoDetectDependencies: e.AutoDetectDependencies}
}

// restoreEdit is a restore as an edit: the version's title, body, triggers and explicit
// dependencies.
func restoreEdit(snap backend.Playbook) backend.PlaybookEdit {
	creds, svcs := explicitOf(snap)
	title, body, triggers := snap.Title, snap.Body, backend.OrEmpty(snap.Triggers)
	return backend.PlaybookEdit{Title: &title, Body: &body, Triggers: &triggers,
		DependsOnCredentialIDs: &creds, DependsOnServiceIDs: &svcs}
}

// editedFields names what a held edit changes, for summaries.
func editedFields(e backend.PlaybookEdit) []string {
	var out []string
	for _, f := range []struct {
		name string
		set  bool
	}{{"title", e.Title != nil}, {"body", e.Body != nil}, {"triggers", e.Triggers != nil},
		{"credential dependencies", e.DependsOnCredentialIDs != nil}, {"service dependencies", e.DependsOnServiceIDs != nil}} {
		if f.set {
			out = append(out, f.name)
		}
	}
	return out
}

// DeckPlaybookReview is whether an agent token's playbook writes on a deck are held for review.
type DeckPlaybookReview struct {
	DeckID   string `json:"deck_id"`
	DeckName string `json:"deck_name"`
	// Required says whether agents' playbook writes on the deck become proposals.
	Required bool `json:"required"`
	// Source is "deck" when the deck has its own setting, "server" when it follows the
	// server's default (serve --playbook-review).
	Source string `json:"source"`
}

// DeckPlaybookReviewInput is the body of PUT /decks/{deck}/playbook-review: true or false sets
// the deck's own setting, null (or nothing) makes it follow the server's default.
type DeckPlaybookReviewInput struct {
	Required *bool `json:"required,omitempty"`
}

// GetDeckPlaybookReview says whether agents' playbook writes on a deck are held for review.
func (s *Hub) GetDeckPlaybookReview(ctx context.Context, deckRef string) (DeckPlaybookReview, error) {
	if _, err := backend.RequireRead(ctx, "read a deck's review setting"); err != nil {
		return DeckPlaybookReview{}, err
	}
	d, err := s.deckByRef(ctx, s.store, deckRef)
	if err != nil {
		return DeckPlaybookReview{}, err
	}
	own, err := s.store.DeckPlaybookReview(ctx, d.ID)
	if err != nil {
		return DeckPlaybookReview{}, backend.StoreErr("reading the review setting", err)
	}
	return s.reviewView(d, own), nil
}

// SetDeckPlaybookReview makes a deck hold agents' playbook writes for review, or not, or
// follow the server's default. Admin only.
func (s *Hub) SetDeckPlaybookReview(ctx context.Context, deckRef string, in DeckPlaybookReviewInput) (DeckPlaybookReview, error) {
	if _, err := backend.RequireAdmin(ctx, "change a deck's review setting"); err != nil {
		return DeckPlaybookReview{}, err
	}
	d, err := s.deckByRef(ctx, s.store, deckRef)
	if err != nil {
		return DeckPlaybookReview{}, err
	}
	if err := s.store.SetDeckPlaybookReview(ctx, d.ID, in.Required); err != nil {
		return DeckPlaybookReview{}, backend.StoreErr("saving the review setting", err)
	}
	return s.reviewView(d, in.Required), nil
}

func (s *Hub) reviewView(d backend.Deck, own *bool) DeckPlaybookReview {
	out := DeckPlaybookReview{DeckID: d.ID, DeckName: d.Name, Required: s.cfg.PlaybookReview, Source: "server"}
	if own != nil {
		out.Required, out.Source = *own, "deck"
	}
	return out
}

// ownsWriteTarget reports whether a member's playbook write lands on their own: the playbook
// they own, or for a new playbook the deck they own (or no deck).
func ownsWriteTarget(ctx context.Context, st backend.Store, a backend.Actor, playbookID, deckID string) (bool, error) {
	switch {
	case playbookID != "":
		p, err := st.GetPlaybook(ctx, playbookID)
		if err != nil {
			return false, backend.StoreErr("reading the playbook", err)
		}
		return p.OwnerID == a.PersonID, nil
	case deckID != "":
		d, err := st.GetDeck(ctx, deckID)
		if err != nil {
			return false, backend.StoreErr("reading the deck", err)
		}
		return d.OwnerID == a.PersonID, nil
	}
	return true, nil
}
