package core

import (
	"context"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// invalidatingStore is the Store the core writes through: after each write this replica makes
// it drops the cached rows the write touched, before the write's caller goes on, so on one
// replica a change (a revocation, a rebind) is seen by the very next request. Inside a
// transaction the drops wait for the commit: dropping earlier would let a concurrent read cache
// the old row again before the new one is visible.
type invalidatingStore struct {
	backend.Store
	c       *caches
	pending *[][2]string // table, id: drops waiting for the transaction's end
}

func (s *invalidatingStore) changed(table, id string) {
	if s.pending != nil {
		*s.pending = append(*s.pending, [2]string{table, id})
		return
	}
	s.c.invalidate(table, id)
}

// after reports a successful or failed write alike: a failed one may still have changed rows
// (a lost reply), and a needless drop only costs a read.
func (s *invalidatingStore) after(err error, table, id string) error {
	s.changed(table, id)
	return err
}

// Transact runs fn in one transaction and drops what it wrote once it has ended.
func (s *invalidatingStore) Transact(ctx context.Context, fn func(backend.Store) error) error {
	if s.pending != nil {
		return fn(s)
	}
	var pending [][2]string
	err := s.Store.Transact(ctx, func(tx backend.Store) error {
		return fn(&invalidatingStore{Store: tx, c: s.c, pending: &pending})
	})
	for _, p := range pending {
		s.c.invalidate(p[0], p[1])
	}
	return err
}

func (s *invalidatingStore) CreateDeck(ctx context.Context, d *backend.Deck) error {
	return s.after(s.Store.CreateDeck(ctx, d), "decks", d.ID)
}
func (s *invalidatingStore) UpdateDeck(ctx context.Context, d *backend.Deck) error {
	return s.after(s.Store.UpdateDeck(ctx, d), "decks", d.ID)
}
func (s *invalidatingStore) DeleteDeck(ctx context.Context, id string) error {
	return s.after(s.Store.DeleteDeck(ctx, id), "decks", id)
}
func (s *invalidatingStore) SetDeckSharing(ctx context.Context, id string, sh backend.Sharing, people []string, owner string) error {
	return s.after(s.Store.SetDeckSharing(ctx, id, sh, people, owner), "decks", id)
}
func (s *invalidatingStore) ReplaceLinks(ctx context.Context, deckID string, t backend.CardType, ids []string) error {
	return s.after(s.Store.ReplaceLinks(ctx, deckID, t, ids), "deck_cards", deckID)
}
func (s *invalidatingStore) SetDeckServiceSettings(ctx context.Context, deckID, serviceID string, st backend.DeckServiceSettings) error {
	return s.after(s.Store.SetDeckServiceSettings(ctx, deckID, serviceID, st), "deck_cards", deckID)
}
func (s *invalidatingStore) SetDeckProjection(ctx context.Context, deckID string, p *backend.DeckProjection) error {
	return s.after(s.Store.SetDeckProjection(ctx, deckID, p), "deck_cards", deckID)
}

func (s *invalidatingStore) SetRateLimitSetting(ctx context.Context, st backend.RateLimitSetting) error {
	return s.after(s.Store.SetRateLimitSetting(ctx, st), "rate_limit_settings", st.DeckID+"/"+st.ServiceID)
}
func (s *invalidatingStore) SetSamplingAllowed(ctx context.Context, deckID, serviceID string, allowed bool) error {
	return s.after(s.Store.SetSamplingAllowed(ctx, deckID, serviceID, allowed), "deck_cards", deckID)
}
func (s *invalidatingStore) CreateService(ctx context.Context, r *backend.ServiceRecord) error {
	return s.after(s.Store.CreateService(ctx, r), "services", r.ID)
}
func (s *invalidatingStore) CreateServices(ctx context.Context, rs []*backend.ServiceRecord) error {
	return s.after(s.Store.CreateServices(ctx, rs), "services", "")
}
func (s *invalidatingStore) UpdateService(ctx context.Context, r *backend.ServiceRecord) error {
	return s.after(s.Store.UpdateService(ctx, r), "services", r.ID)
}
func (s *invalidatingStore) UpdateServiceHealth(ctx context.Context, id string, h backend.Health) error {
	return s.after(s.Store.UpdateServiceHealth(ctx, id, h), "services", id)
}
func (s *invalidatingStore) DeleteService(ctx context.Context, id string) error {
	return s.after(s.Store.DeleteService(ctx, id), "services", id)
}
func (s *invalidatingStore) PinToolsFirstUse(ctx context.Context, id string, pins []backend.ToolPin) (bool, error) {
	first, err := s.Store.PinToolsFirstUse(ctx, id, pins)
	s.changed("service_tool_pins", id)
	return first, s.after(err, "services", id)
}
func (s *invalidatingStore) ApproveToolPins(ctx context.Context, id string, pins []backend.ToolPin) error {
	err := s.Store.ApproveToolPins(ctx, id, pins)
	s.changed("service_tool_pins", id)
	return s.after(err, "services", id)
}
func (s *invalidatingStore) ClearToolPins(ctx context.Context, id string) error {
	err := s.Store.ClearToolPins(ctx, id)
	s.changed("service_tool_pins", id)
	return s.after(err, "services", id)
}
func (s *invalidatingStore) CreateCredential(ctx context.Context, c *backend.CredentialRecord) error {
	return s.after(s.Store.CreateCredential(ctx, c), "credentials", c.ID)
}
func (s *invalidatingStore) SetPersonalSecret(ctx context.Context, credID, personID string, sealed []byte, at time.Time) error {
	return s.after(s.Store.SetPersonalSecret(ctx, credID, personID, sealed, at), "credentials", credID)
}
func (s *invalidatingStore) CreateCredentials(ctx context.Context, cs []*backend.CredentialRecord) error {
	return s.after(s.Store.CreateCredentials(ctx, cs), "credentials", "")
}
func (s *invalidatingStore) UpdateCredential(ctx context.Context, c *backend.CredentialRecord) error {
	return s.after(s.Store.UpdateCredential(ctx, c), "credentials", c.ID)
}
func (s *invalidatingStore) DeleteCredential(ctx context.Context, id string) error {
	return s.after(s.Store.DeleteCredential(ctx, id), "credentials", id)
}
func (s *invalidatingStore) CreatePlaybook(ctx context.Context, p *backend.Playbook) error {
	return s.after(s.Store.CreatePlaybook(ctx, p), "playbooks", p.ID)
}
func (s *invalidatingStore) CreatePlaybooks(ctx context.Context, ps []*backend.Playbook) error {
	return s.after(s.Store.CreatePlaybooks(ctx, ps), "playbooks", "")
}
func (s *invalidatingStore) UpdatePlaybook(ctx context.Context, p *backend.Playbook) error {
	return s.after(s.Store.UpdatePlaybook(ctx, p), "playbooks", p.ID)
}
func (s *invalidatingStore) DeletePlaybook(ctx context.Context, id string) error {
	return s.after(s.Store.DeletePlaybook(ctx, id), "playbooks", id)
}
func (s *invalidatingStore) AddPlaybookVersion(ctx context.Context, v *backend.PlaybookVersion) error {
	return s.after(s.Store.AddPlaybookVersion(ctx, v), "playbooks", v.PlaybookID)
}
func (s *invalidatingStore) CreateToken(ctx context.Context, t *backend.TokenRecord) error {
	return s.after(s.Store.CreateToken(ctx, t), "tokens", t.ID)
}
func (s *invalidatingStore) RevokeToken(ctx context.Context, id string, at time.Time) error {
	return s.after(s.Store.RevokeToken(ctx, id, at), "tokens", id)
}
func (s *invalidatingStore) CreatePerson(ctx context.Context, p *backend.Person) error {
	return s.after(s.Store.CreatePerson(ctx, p), "people", p.ID)
}
func (s *invalidatingStore) UpdatePerson(ctx context.Context, p *backend.Person) error {
	return s.after(s.Store.UpdatePerson(ctx, p), "people", p.ID)
}

// RemovePerson drops everything cached (a person change resets the caches): the person's
// tokens stop working on this replica at once.
func (s *invalidatingStore) RemovePerson(ctx context.Context, id string, at time.Time) (backend.PersonRemoval, error) {
	r, err := s.Store.RemovePerson(ctx, id, at)
	return r, s.after(err, "people", id)
}
func (s *invalidatingStore) CreateSession(ctx context.Context, m *backend.MCPSession) error {
	return s.after(s.Store.CreateSession(ctx, m), "mcp_sessions", m.ID)
}
func (s *invalidatingStore) OpenSession(ctx context.Context, m *backend.MCPSession, pool []string, maxPerToken int) ([]string, error) {
	expired, err := s.Store.OpenSession(ctx, m, pool, maxPerToken)
	for _, id := range expired {
		s.changed("mcp_sessions", id)
	}
	return expired, s.after(err, "mcp_sessions", m.ID)
}
func (s *invalidatingStore) BindUnboundSession(ctx context.Context, m *backend.MCPSession) (bool, error) {
	ok, err := s.Store.BindUnboundSession(ctx, m)
	return ok, s.after(err, "mcp_sessions", m.ID)
}
func (s *invalidatingStore) UpdateSessionBinding(ctx context.Context, m *backend.MCPSession) error {
	return s.after(s.Store.UpdateSessionBinding(ctx, m), "mcp_sessions", m.ID)
}
func (s *invalidatingStore) MarkServiceTalksBack(ctx context.Context, id string) error {
	return s.after(s.Store.MarkServiceTalksBack(ctx, id), "services", id)
}
func (s *invalidatingStore) SetSessionLogLevel(ctx context.Context, id, level string) error {
	return s.after(s.Store.SetSessionLogLevel(ctx, id, level), "mcp_sessions", id)
}
func (s *invalidatingStore) TerminateSession(ctx context.Context, id string, at time.Time) error {
	return s.after(s.Store.TerminateSession(ctx, id, at), "mcp_sessions", id)
}
func (s *invalidatingStore) ExpireSessions(ctx context.Context, seenBefore time.Time) (int, error) {
	n, err := s.Store.ExpireSessions(ctx, seenBefore)
	if n == 0 && err == nil {
		return 0, nil // nothing expired: keep the cached sessions
	}
	return n, s.after(err, "mcp_sessions", "")
}

// A service's sign-in is part of the target built for it (its bearer token): a sign-in, a
// refresh or a disconnect drops the cached targets here at once, so the next call on this
// replica sends the new token (other replicas learn it from the change feed).
func (s *invalidatingStore) PutOAuth(ctx context.Context, r *backend.OAuthRecord) error {
	return s.after(s.Store.PutOAuth(ctx, r), "services", r.ServiceID)
}

func (s *invalidatingStore) DeleteOAuth(ctx context.Context, serviceID, personID string) error {
	return s.after(s.Store.DeleteOAuth(ctx, serviceID, personID), "services", serviceID)
}

func (s *invalidatingStore) LockOAuth(ctx context.Context, serviceID, personID string, fn func(backend.OAuthRecord) (backend.OAuthRecord, error)) (backend.OAuthRecord, error) {
	r, err := s.Store.LockOAuth(ctx, serviceID, personID, fn)
	return r, s.after(err, "services", serviceID)
}
