package core

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// DeckServiceSettingsInput changes a deck's rules for a service it links; a field left out
// keeps its value. Setting one list clears the other. An empty credential_id goes back to the
// service's own credential.
type DeckServiceSettingsInput struct {
	AllowTools   *[]string `json:"allow_tools,omitempty"`
	DenyTools    *[]string `json:"deny_tools,omitempty"`
	CredentialID *string   `json:"credential_id,omitempty"`
}

// DeckServiceSettingsResult is a deck's rules for one service, after any change.
type DeckServiceSettingsResult struct {
	DeckID      string `json:"deck_id"`
	DeckName    string `json:"deck_name"`
	ServiceID   string `json:"service_id"`
	ServiceName string `json:"service_name"`
	backend.DeckServiceSettings
	Warnings []Warning `json:"warnings,omitempty"`
}

// GetDeckServiceSettings returns a deck's rules for a service it links.
func (s *Hub) GetDeckServiceSettings(ctx context.Context, deckRef, serviceRef string) (DeckServiceSettingsResult, error) {
	if _, err := backend.RequireRead(ctx, "read a deck's service settings"); err != nil {
		return DeckServiceSettingsResult{}, err
	}
	d, rec, cur, err := s.deckServiceLink(ctx, deckRef, serviceRef)
	if err != nil {
		return DeckServiceSettingsResult{}, err
	}
	return settingsResult(d, rec, cur), nil
}

// UpdateDeckServiceSettings changes a deck's rules for a service it links. Choosing the
// credential is admin only (it decides which secret reaches the service's URL, SPEC §10); an
// agent token may narrow the deck's tools but never widen them.
func (s *Hub) UpdateDeckServiceSettings(ctx context.Context, deckRef, serviceRef string, in DeckServiceSettingsInput) (DeckServiceSettingsResult, error) {
	a, err := backend.RequireWrite(ctx, "change a deck's service settings")
	if err != nil {
		return DeckServiceSettingsResult{}, err
	}
	if in.CredentialID != nil && !a.IsAdmin() {
		return DeckServiceSettingsResult{}, backend.Refuse(a.Scope, "choose the credential a deck presents to a service").
			WithDetail("field", "credential_id").
			WithHint("this needs a token with scope admin; ask an admin to run: agent-deck deck credential DECK SERVICE CREDENTIAL")
	}
	next, err := mergeDeckSettingsInput(in)
	if err != nil {
		return DeckServiceSettingsResult{}, err
	}
	d, rec, cur, err := s.deckServiceLink(ctx, deckRef, serviceRef)
	if err != nil {
		return DeckServiceSettingsResult{}, err
	}
	if next.AllowTools == nil && next.DenyTools == nil {
		next.AllowTools, next.DenyTools = cur.AllowTools, cur.DenyTools
	}
	next.CredentialID = cur.CredentialID
	if in.CredentialID != nil {
		if next.CredentialID, err = s.deckCredentialID(ctx, *in.CredentialID); err != nil {
			return DeckServiceSettingsResult{}, err
		}
	}
	if !a.IsAdmin() && widens(cur, next) {
		return DeckServiceSettingsResult{}, backend.Refuse(a.Scope,
			fmt.Sprintf("widen the tools deck %s exposes of %s, only narrow them", backend.QuoteClip(d.Name), backend.QuoteClip(rec.Name))).
			WithDetail("field", "allow_tools").WithDetail("allow_tools", backend.OrEmpty(cur.AllowTools)).
			WithDetail("deny_tools", backend.OrEmpty(cur.DenyTools)).
			WithHint("allow fewer of the tools allowed now, or deny more; an admin token may widen")
	}
	warning, err := s.checkDeckToolNames(ctx, rec, next)
	if err != nil {
		return DeckServiceSettingsResult{}, err
	}
	if err := s.store.SetDeckServiceSettings(ctx, d.ID, rec.ID, next); err != nil {
		return DeckServiceSettingsResult{}, backend.StoreErr("saving a deck's service settings", err)
	}
	res := settingsResult(d, rec, next)
	if warning != nil {
		res.Warnings = []Warning{*warning}
	}
	return res, nil
}

// mergeDeckSettingsInput validates the tool lists of a change; nil lists mean "unchanged".
func mergeDeckSettingsInput(in DeckServiceSettingsInput) (backend.DeckServiceSettings, error) {
	var out backend.DeckServiceSettings
	allow, deny := in.AllowTools != nil && len(*in.AllowTools) > 0, in.DenyTools != nil && len(*in.DenyTools) > 0
	if allow && deny {
		return out, backend.Invalid("allow_tools", "and deny_tools cannot both be set: a deck either allows some tools or denies some").
			WithHint("send allow_tools (the only tools the deck exposes) or deny_tools (tools it hides), and the other as []")
	}
	if in.AllowTools == nil && in.DenyTools == nil {
		return out, nil
	}
	var err error
	if out.AllowTools, err = cleanToolNames("allow_tools", deref(in.AllowTools)); err != nil {
		return out, err
	}
	if out.DenyTools, err = cleanToolNames("deny_tools", deref(in.DenyTools)); err != nil {
		return out, err
	}
	return out, nil
}

func deref(p *[]string) []string {
	if p == nil {
		return nil
	}
	return *p
}

// widens says whether next exposes a tool cur hides: the allowed set of next must be a subset
// of cur's whatever the service's tools are.
func widens(cur, next backend.DeckServiceSettings) bool {
	switch {
	case len(cur.AllowTools) > 0:
		if len(next.AllowTools) == 0 {
			return true
		}
		for _, t := range next.AllowTools {
			if !slices.Contains(cur.AllowTools, t) {
				return true
			}
		}
		return false
	case len(next.AllowTools) > 0:
		for _, t := range next.AllowTools {
			if slices.Contains(cur.DenyTools, t) {
				return true
			}
		}
		return false
	default:
		for _, t := range cur.DenyTools {
			if !slices.Contains(next.DenyTools, t) {
				return true
			}
		}
		return false
	}
}

// deckServiceLink resolves a deck and a service it links, with the deck's current rules for it.
// A service the deck does not link is NOT_FOUND naming the services it does.
func (s *Hub) deckServiceLink(ctx context.Context, deckRef, serviceRef string) (backend.Deck, backend.ServiceRecord, backend.DeckServiceSettings, error) {
	d, err := s.deckByRef(ctx, s.store, deckRef)
	if err != nil {
		return backend.Deck{}, backend.ServiceRecord{}, backend.DeckServiceSettings{}, err
	}
	rec, err := backend.ServiceByRef(ctx, s.store, serviceRef)
	if err != nil {
		return backend.Deck{}, backend.ServiceRecord{}, backend.DeckServiceSettings{}, err
	}
	links, err := s.store.ListLinks(ctx, d.ID)
	if err != nil {
		return backend.Deck{}, backend.ServiceRecord{}, backend.DeckServiceSettings{}, backend.StoreErr("listing deck cards", err)
	}
	for _, l := range links {
		if l.CardType == backend.CardService && l.CardID == rec.ID {
			var cur backend.DeckServiceSettings
			if l.Settings != nil {
				cur = *l.Settings
			}
			return d, rec, cur, nil
		}
	}
	names, err := describeCards(ctx, s.store, backend.CardService, idsOfType(links, backend.CardService))
	if err != nil {
		return backend.Deck{}, backend.ServiceRecord{}, backend.DeckServiceSettings{}, err
	}
	return backend.Deck{}, backend.ServiceRecord{}, backend.DeckServiceSettings{}, backend.Errorf(backend.CodeNotFound,
		"service %s is not on deck %s; services on the deck: %s", backend.QuoteClip(rec.Name), backend.QuoteClip(d.Name), backend.KnownList(names)).
		WithDetail("field", "service").WithDetail("on_deck", backend.CapList(names)).
		WithHint("link the service to the deck first; a deck's rules apply to the services it links")
}

// deckCredentialID resolves the credential a deck chooses (id or label); "" is the service's own.
func (s *Hub) deckCredentialID(ctx context.Context, ref string) (string, error) {
	if strings.TrimSpace(ref) == "" {
		return "", nil
	}
	c, err := backend.CredentialByRef(ctx, s.store, ref)
	if err != nil {
		return "", err
	}
	return c.ID, nil
}

// checkDeckToolNames refuses tool names the service does not list, as tool settings do.
func (s *Hub) checkDeckToolNames(ctx context.Context, rec backend.ServiceRecord, st backend.DeckServiceSettings) (*Warning, error) {
	field, names := "allow_tools", st.AllowTools
	if len(names) == 0 {
		field, names = "deny_tools", st.DenyTools
	}
	if len(names) == 0 || s.downstream == nil {
		return nil, nil
	}
	tools, reason := s.existingTools(ctx, rec)
	if reason != "" {
		return &Warning{Code: "TOOLS_UNCHECKED", Message: "kept " + backend.QuoteNames(names) +
			" without checking that " + rec.Name + " has such tools: " + reason}, nil
	}
	if unknown := backend.NotIn(names, tools); len(unknown) > 0 {
		ranked := backend.ByCloseness(unknown[0], tools)
		return nil, backend.Invalid(field, "%s has no tool named %s; its tools, closest first: %s",
			rec.Name, backend.QuoteNames(unknown), strings.Join(backend.CapList(ranked), ", ")).
			WithDetail("unknown", unknown).WithDetail("accepted", backend.CapList(ranked))
	}
	return nil, nil
}

func settingsResult(d backend.Deck, rec backend.ServiceRecord, st backend.DeckServiceSettings) DeckServiceSettingsResult {
	st.AllowTools, st.DenyTools = backend.OrEmpty(st.AllowTools), backend.OrEmpty(st.DenyTools)
	return DeckServiceSettingsResult{DeckID: d.ID, DeckName: d.Name, ServiceID: rec.ID, ServiceName: rec.Name,
		DeckServiceSettings: st}
}

// deckScope is the deck a call reaches a service through, with the deck's rules for it.
type deckScope struct {
	name     string
	settings *backend.DeckServiceSettings
}

// admitTool refuses a tool the deck's rules hide, naming the rule.
func (sc deckScope) admitTool(ctx context.Context, rec backend.ServiceRecord, tool string) error {
	if sc.settings.Allows(tool) {
		return nil
	}
	return backend.Errorf(backend.CodeForbidden, "tool %s of %s is not available on this deck: %s",
		backend.QuoteClip(tool), rec.Name, sc.settings.Rule(sc.name)).
		WithDetail("service_id", rec.ID).WithDetail("tool", tool).WithDetail("deck", sc.name).
		WithHint("call one of the tools " + toolLister(ctx) + " shows; an admin can change the deck's rule with: agent-deck deck tools")
}

// scopedTarget applies the deck's credential choice to the service's target: a deck choosing
// another credential than the service's gets a target of its own, with its own connection key
// so no connection carrying one credential serves a call made with another.
func (s *Hub) scopedTarget(ctx context.Context, sc deckScope, rec backend.ServiceRecord, t backend.Target) (backend.Target, error) {
	if sc.settings == nil || sc.settings.CredentialID == "" || sc.settings.CredentialID == rec.CredentialID {
		return t, nil
	}
	key := rec.ID + "|credential:" + sc.settings.CredentialID
	if _, ct, ok := s.cachedServiceTarget(key); ok {
		s.cfg.Redactor.Learn(key, ct.Secrets)
		return ct, nil
	}
	gen, _ := s.cache.generation()
	r := rec
	r.CredentialID = sc.settings.CredentialID
	ct, err := s.egressTarget(ctx, r)
	if err != nil {
		return backend.Target{}, err
	}
	ct.ConnKey = key
	s.cfg.Redactor.Learn(key, ct.Secrets)
	cachePut(s.cache, serviceMap, gen, key, serviceEntry{rec: rec, target: ct})
	return ct, nil
}
