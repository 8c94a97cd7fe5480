package core

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"sync"

	"github.com/agent-deck/agent-deck/backend"
)

// MCP resources and prompts of a bound session. The hub serves its own resources, the bound
// deck's snapshot and each playbook on it, and proxies the resources and prompts of the deck's
// services: listed under the hub's names (a service's resource as agentdeck://services/<service>/
// resources/<its URI, escaped>, its prompt as <service>__<prompt>), read and got through the
// deck's plan of the service, so its credentials, rules and sign-in apply as to a call. Lists
// are paged: the hub's own resources first, then each service's pages in deck order.

// The hub's resource URIs.
const (
	ResourceScheme    = "agentdeck://"
	DeckResourceURI   = ResourceScheme + "deck"
	playbookURIPrefix = ResourceScheme + "playbooks/"
	serviceURIPrefix  = ResourceScheme + "services/"
	// PlaybookTemplate reads a playbook on the bound deck by id or title.
	PlaybookTemplate = playbookURIPrefix + "{playbook_id}"
)

// codeMethodNotFound is JSON-RPC's answer of a server without the capability asked for.
const codeMethodNotFound = -32601

// CatalogPage is one page of a list: the items, raw, and the cursor of the next page.
type CatalogPage struct {
	Items      []json.RawMessage
	NextCursor string
}

// catalogCursor is where a list goes on: the deck's service at index S (-1: the hub's own
// items) and that service's own cursor.
type catalogCursor struct {
	S int    `json:"s"`
	C string `json:"c,omitempty"`
}

func (c catalogCursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.StdEncoding.EncodeToString(b)
}

func decodeCatalogCursor(s string) (catalogCursor, error) {
	if s == "" {
		return catalogCursor{S: -1}, nil
	}
	var c catalogCursor
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &c) != nil || c.S < 0 {
		return catalogCursor{}, backend.Invalid("cursor", "is not a cursor this server gave").
			WithHint("pass nextCursor of the previous page as it was, or no cursor for the first page")
	}
	return c, nil
}

// catalogSession is a bound session's deck as its resources and prompts see it: its services in
// deck order and their prefixes.
type catalogSession struct {
	sess     backend.MCPSession
	deck     backend.Deck
	services []backend.ServiceRecord
	prefixes map[string]string
	plan     planFunc
}

// catalogFor resolves the session's deck; ok is false for an unbound session, which has no
// resources or prompts.
func (s *Hub) catalogFor(ctx context.Context, sessionID string) (catalogSession, bool, error) {
	sess, err := s.sessionFor(ctx, sessionID)
	if err != nil || sess.DeckID == "" {
		return catalogSession{}, false, err
	}
	d, err := s.deckByRefCached(ctx, sess.DeckID)
	if backend.IsNotFound(err) {
		return catalogSession{}, false, nil
	}
	if err != nil {
		return catalogSession{}, false, err
	}
	v, err := s.deckViews(ctx, d)
	if err != nil {
		return catalogSession{}, false, err
	}
	return catalogSession{sess: sess, deck: d, services: v.records, prefixes: servicePrefixes(v.records),
		plan: s.boundPlans(sessionID)}, true, nil
}

// byPrefix finds the deck's service of a prefix.
func (c catalogSession) byPrefix(prefix string) (backend.ServiceRecord, bool) {
	for _, svc := range c.services {
		if c.prefixes[svc.ID] == prefix {
			return svc, true
		}
	}
	return backend.ServiceRecord{}, false
}

// forward sends a catalog request to one of the deck's services through its plan.
func (s *Hub) forward(ctx context.Context, c catalogSession, serviceID, method string, params any) (json.RawMessage, error) {
	cat, ok := s.downstream.(backend.DownstreamCatalog)
	if !ok || s.downstream == nil {
		return nil, backend.Errorf(backend.CodeDownstreamUnreachable, "downstream resources and prompts cannot be reached from this process")
	}
	p, err := c.plan(ctx, serviceID)
	if err != nil {
		return nil, err
	}
	var body json.RawMessage
	if params != nil {
		if body, err = json.Marshal(params); err != nil {
			return nil, backend.Internal("encoding a request", err)
		}
	}
	res, err := cat.Forward(ctx, p.target, method, body)
	s.syncHealth(ctx, p.service, false)
	return res, err
}

// lacksCapability reports whether a downstream refused a request as a method it does not have.
func lacksCapability(err error) bool {
	var e *backend.Error
	if !errors.As(err, &e) || e.Details == nil {
		return false
	}
	code, ok := e.Details["downstream_code"].(int)
	return ok && code == codeMethodNotFound
}

// catalogList pages a list over the deck: own is the hub's items (first page), and each service
// is asked with method for the items under key, renamed by rename. The services are asked a few
// at once (deckToolsFanOut), so a deck of many services without the capability costs a few
// rounds, not one per service; a page ends at the first service with more pages of its own, or
// after the first round that found items. A service that cannot be reached, needs signing in or
// lacks the capability is passed over (it is read alone when asked for directly).
func (s *Hub) catalogList(ctx context.Context, sessionID, cursor, method, key string, own func(context.Context, catalogSession) []json.RawMessage,
	rename func(c catalogSession, svc backend.ServiceRecord, item json.RawMessage) (json.RawMessage, bool)) (CatalogPage, error) {
	if _, err := backend.RequireRead(ctx, "list resources and prompts"); err != nil {
		return CatalogPage{}, err
	}
	cur, err := decodeCatalogCursor(cursor)
	if err != nil {
		return CatalogPage{}, err
	}
	c, bound, err := s.catalogFor(ctx, sessionID)
	if err != nil || !bound {
		return CatalogPage{Items: []json.RawMessage{}}, err
	}
	page := CatalogPage{Items: []json.RawMessage{}}
	if cur.S < 0 {
		page.Items = append(page.Items, own(ctx, c)...)
		cur = catalogCursor{S: 0}
	}
	for cur.S < len(c.services) {
		n := min(deckToolsFanOut, len(c.services)-cur.S)
		answers := make([]catalogAnswer, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				inner := ""
				if i == 0 {
					inner = cur.C
				}
				answers[i] = s.catalogPageOf(ctx, c, c.services[cur.S+i].ID, method, key, inner)
			}()
		}
		wg.Wait()
		for i, a := range answers {
			svc := c.services[cur.S+i]
			for _, it := range a.items {
				if r, ok := rename(c, svc, it); ok {
					page.Items = append(page.Items, r)
				}
			}
			if a.next != "" && (i > 0 || a.next != cur.C) {
				page.NextCursor = catalogCursor{S: cur.S + i, C: a.next}.encode()
				return page, nil
			}
		}
		cur = catalogCursor{S: cur.S + n}
		if len(page.Items) > 0 && cur.S < len(c.services) {
			page.NextCursor = cur.encode()
			return page, nil
		}
	}
	return page, nil
}

// catalogAnswer is one page of one service's list.
type catalogAnswer struct {
	items []json.RawMessage
	next  string
}

// catalogPageOf asks one service for a page of its list; a service that fails is an empty page.
func (s *Hub) catalogPageOf(ctx context.Context, c catalogSession, serviceID, method, key, cursor string) catalogAnswer {
	var params any
	if cursor != "" {
		params = map[string]string{"cursor": cursor}
	}
	ctx, cancel := context.WithTimeout(ctx, deckToolsTimeout)
	defer cancel()
	raw, err := s.forward(ctx, c, serviceID, method, params)
	if err != nil {
		if !lacksCapability(err) {
			s.log.Debug("a service's list was passed over", "method", method, "service_id", serviceID, "code", backend.ErrorCode(err))
		}
		return catalogAnswer{}
	}
	var res map[string]json.RawMessage
	var a catalogAnswer
	if json.Unmarshal(raw, &res) != nil || json.Unmarshal(res[key], &a.items) != nil {
		return catalogAnswer{}
	}
	_ = json.Unmarshal(res["nextCursor"], &a.next)
	return a
}

// BoundResources is resources/list: the deck's snapshot and playbooks, then the resources of
// the deck's services under the hub's URIs.
func (s *Hub) BoundResources(ctx context.Context, sessionID, cursor string) (CatalogPage, error) {
	return s.catalogList(ctx, sessionID, cursor, "resources/list", "resources", s.ownResources, renameResource)
}

// ownResources are the hub's resources of a bound session.
func (s *Hub) ownResources(ctx context.Context, c catalogSession) []json.RawMessage {
	out := []json.RawMessage{mustRaw(map[string]any{"uri": DeckResourceURI, "name": "deck",
		"title": "Deck " + c.deck.Name, "mimeType": "application/json",
		"description": "The bound deck: its services, API key metadata and playbooks, as get_bound_deck shows them"})}
	if v, err := s.deckViews(ctx, c.deck); err == nil {
		for _, p := range v.playbooks {
			desc := "Playbook"
			if len(p.Triggers) > 0 {
				desc += "; use when: " + strings.Join(p.Triggers, "; ")
			}
			out = append(out, mustRaw(map[string]any{"uri": playbookURIPrefix + url.PathEscape(p.ID), "name": p.ID,
				"title": p.Title, "mimeType": "text/markdown", "description": desc}))
		}
	}
	return out
}

// renameResource lists a service's resource under the hub's URI, its name prefixed by the
// service's.
func renameResource(c catalogSession, svc backend.ServiceRecord, item json.RawMessage) (json.RawMessage, bool) {
	var r map[string]json.RawMessage
	var uri, name string
	if json.Unmarshal(item, &r) != nil || json.Unmarshal(r["uri"], &uri) != nil || uri == "" {
		return nil, false
	}
	_ = json.Unmarshal(r["name"], &name)
	r["uri"] = mustRaw(serviceURIPrefix + c.prefixes[svc.ID] + "/resources/" + url.PathEscape(uri))
	r["name"] = mustRaw(c.prefixes[svc.ID] + "/" + cmpStr(name, uri))
	delete(r, "_meta")
	return mustRaw(r), true
}

// BoundResourceTemplates is resources/templates/list: the hub's playbook template, then the
// templates of the deck's services, their literal parts escaped into the hub's URIs.
func (s *Hub) BoundResourceTemplates(ctx context.Context, sessionID, cursor string) (CatalogPage, error) {
	own := func(context.Context, catalogSession) []json.RawMessage {
		return []json.RawMessage{mustRaw(map[string]any{"uriTemplate": PlaybookTemplate, "name": "playbook",
			"title": "Playbook by id or title", "mimeType": "text/markdown",
			"description": "A playbook on the bound deck, by id or title; completion offers the deck's playbook ids"})}
	}
	return s.catalogList(ctx, sessionID, cursor, "resources/templates/list", "resourceTemplates", own,
		func(c catalogSession, svc backend.ServiceRecord, item json.RawMessage) (json.RawMessage, bool) {
			var r map[string]json.RawMessage
			var tmpl, name string
			if json.Unmarshal(item, &r) != nil || json.Unmarshal(r["uriTemplate"], &tmpl) != nil || tmpl == "" {
				return nil, false
			}
			_ = json.Unmarshal(r["name"], &name)
			r["uriTemplate"] = mustRaw(serviceURIPrefix + c.prefixes[svc.ID] + "/resources/" + escapeTemplate(tmpl))
			r["name"] = mustRaw(c.prefixes[svc.ID] + "/" + cmpStr(name, tmpl))
			delete(r, "_meta")
			return mustRaw(r), true
		})
}

// escapeTemplate escapes a URI template's literal parts as a URI path segment and keeps its
// expressions, so the hub's template expands to the hub's URI of the resource it names.
func escapeTemplate(t string) string {
	var b strings.Builder
	for t != "" {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			b.WriteString(url.PathEscape(t))
			break
		}
		j := strings.IndexByte(t[i:], '}')
		if j < 0 {
			b.WriteString(url.PathEscape(t))
			break
		}
		b.WriteString(url.PathEscape(t[:i]))
		b.WriteString(t[i : i+j+1])
		t = t[i+j+1:]
	}
	return b.String()
}

// ReadBoundResource is resources/read of a hub URI: the deck, a playbook, or a service's
// resource read through the deck.
func (s *Hub) ReadBoundResource(ctx context.Context, sessionID, uri string) (json.RawMessage, error) {
	if _, err := backend.RequireRead(ctx, "read resources"); err != nil {
		return nil, err
	}
	switch {
	case uri == DeckResourceURI:
		d, err := s.BoundDeck(ctx, sessionID, DeckPageInput{})
		if err != nil {
			return nil, err
		}
		text, err := json.Marshal(d)
		if err != nil {
			return nil, backend.Internal("rendering the deck", err)
		}
		return contents(uri, "application/json", string(text)), nil
	case strings.HasPrefix(uri, playbookURIPrefix):
		ref, err := url.PathUnescape(strings.TrimPrefix(uri, playbookURIPrefix))
		if err != nil {
			return nil, unknownResource(uri)
		}
		p, err := s.BoundPlaybook(ctx, sessionID, ref)
		if err != nil {
			return nil, err
		}
		return contents(uri, "text/markdown", p.Body), nil
	case strings.HasPrefix(uri, serviceURIPrefix):
		return s.readServiceResource(ctx, sessionID, uri)
	}
	return nil, unknownResource(uri)
}

func contents(uri, mime, text string) json.RawMessage {
	return mustRaw(map[string]any{"contents": []map[string]string{{"uri": uri, "mimeType": mime, "text": text}}})
}

// readServiceResource reads a service's resource and gives its contents the hub's URIs.
func (s *Hub) readServiceResource(ctx context.Context, sessionID, uri string) (json.RawMessage, error) {
	c, svc, inner, err := s.serviceResource(ctx, sessionID, uri)
	if err != nil {
		return nil, err
	}
	raw, err := s.forward(ctx, c, svc.ID, "resources/read", map[string]string{"uri": inner})
	if err != nil {
		return nil, err
	}
	var res struct {
		Contents []map[string]json.RawMessage `json:"contents"`
	}
	if json.Unmarshal(raw, &res) != nil {
		return nil, backend.Errorf(backend.CodeDownstreamError, "%s answered resources/read with a malformed result", svc.Name)
	}
	for _, ct := range res.Contents {
		var u string
		if json.Unmarshal(ct["uri"], &u) == nil && u != "" {
			ct["uri"] = mustRaw(serviceURIPrefix + c.prefixes[svc.ID] + "/resources/" + url.PathEscape(u))
		}
		delete(ct, "_meta")
	}
	if res.Contents == nil {
		res.Contents = []map[string]json.RawMessage{}
	}
	return mustRaw(res), nil
}

// serviceResource splits a hub URI of a service's resource into the deck's service and the
// resource's own URI.
func (s *Hub) serviceResource(ctx context.Context, sessionID, uri string) (catalogSession, backend.ServiceRecord, string, error) {
	prefix, rest, ok := strings.Cut(strings.TrimPrefix(uri, serviceURIPrefix), "/resources/")
	inner, err := url.PathUnescape(rest)
	if !ok || err != nil || inner == "" {
		return catalogSession{}, backend.ServiceRecord{}, "", unknownResource(uri)
	}
	c, bound, err := s.catalogFor(ctx, sessionID)
	if err != nil {
		return catalogSession{}, backend.ServiceRecord{}, "", err
	}
	if !bound {
		return catalogSession{}, backend.ServiceRecord{}, "", s.notBound(ctx, "this session is not bound to a deck")
	}
	svc, ok := c.byPrefix(prefix)
	if !ok {
		return catalogSession{}, backend.ServiceRecord{}, "", unknownResource(uri)
	}
	return c, svc, inner, nil
}

// unknownResource is a URI the hub does not serve.
func unknownResource(uri string) *backend.Error {
	return backend.Errorf(backend.CodeNotFound, "no resource %s on the bound deck", backend.QuoteClip(uri)).
		WithHint("resources/list shows the resources: " + DeckResourceURI + ", " + playbookURIPrefix + "<id>, and the services'")
}

// SubscribeBoundResource is resources/subscribe: a playbook's resource, whose update the
// session is told of (notifications/resources/updated) when anyone changes the playbook.
func (s *Hub) SubscribeBoundResource(ctx context.Context, sessionID, uri string) error {
	if _, err := backend.RequireRead(ctx, "subscribe to resources"); err != nil {
		return err
	}
	if !strings.HasPrefix(uri, playbookURIPrefix) {
		return backend.Invalid("uri", "only playbook resources (%s<id>) can be subscribed to; %s cannot",
			playbookURIPrefix, backend.QuoteClip(uri)).
			WithHint("the deck's list changes are announced with notifications/resources/list_changed")
	}
	ref, err := url.PathUnescape(strings.TrimPrefix(uri, playbookURIPrefix))
	if err != nil {
		return unknownResource(uri)
	}
	id, err := s.boundPlaybookID(ctx, sessionID, ref)
	if err != nil {
		return err
	}
	if err := s.store.SubscribeResource(ctx, backend.ResourceSubscription{SessionID: sessionID, URI: uri, PlaybookID: id}); err != nil {
		return backend.StoreErr("subscribing to a resource", err)
	}
	return nil
}

// UnsubscribeBoundResource is resources/unsubscribe; an unknown subscription is fine.
func (s *Hub) UnsubscribeBoundResource(ctx context.Context, sessionID, uri string) error {
	if _, err := backend.RequireRead(ctx, "unsubscribe from resources"); err != nil {
		return err
	}
	if err := s.store.UnsubscribeResource(ctx, sessionID, uri); err != nil {
		return backend.StoreErr("unsubscribing from a resource", err)
	}
	return nil
}

// BoundPrompts is prompts/list: the prompts of the deck's services, each named
// <service>__<prompt>.
func (s *Hub) BoundPrompts(ctx context.Context, sessionID, cursor string) (CatalogPage, error) {
	none := func(context.Context, catalogSession) []json.RawMessage { return nil }
	return s.catalogList(ctx, sessionID, cursor, "prompts/list", "prompts", none,
		func(c catalogSession, svc backend.ServiceRecord, item json.RawMessage) (json.RawMessage, bool) {
			var r map[string]json.RawMessage
			var name string
			if json.Unmarshal(item, &r) != nil || json.Unmarshal(r["name"], &name) != nil || name == "" {
				return nil, false
			}
			r["name"] = mustRaw(c.prefixes[svc.ID] + projectedSep + name)
			delete(r, "_meta")
			return mustRaw(r), true
		})
}

// GetBoundPrompt is prompts/get of a <service>__<prompt> name, through the deck.
func (s *Hub) GetBoundPrompt(ctx context.Context, sessionID, name string, args json.RawMessage) (json.RawMessage, error) {
	if _, err := backend.RequireRead(ctx, "get prompts"); err != nil {
		return nil, err
	}
	c, svc, inner, err := s.servicePrompt(ctx, sessionID, name)
	if err != nil {
		return nil, err
	}
	params := map[string]any{"name": inner}
	if len(args) > 0 && string(args) != "null" {
		params["arguments"] = args
	}
	return s.forward(ctx, c, svc.ID, "prompts/get", params)
}

// servicePrompt splits a <service>__<prompt> name into the deck's service and its prompt.
func (s *Hub) servicePrompt(ctx context.Context, sessionID, name string) (catalogSession, backend.ServiceRecord, string, error) {
	unknown := backend.Errorf(backend.CodeNotFound, "no prompt %s on the bound deck", backend.QuoteClip(name)).
		WithHint("prompts/list shows the prompts, each named <service>__<prompt>")
	prefix, inner, ok := strings.Cut(name, projectedSep)
	if !ok || inner == "" {
		return catalogSession{}, backend.ServiceRecord{}, "", unknown
	}
	c, bound, err := s.catalogFor(ctx, sessionID)
	if err != nil {
		return catalogSession{}, backend.ServiceRecord{}, "", err
	}
	if !bound {
		return catalogSession{}, backend.ServiceRecord{}, "", s.notBound(ctx, "this session is not bound to a deck")
	}
	svc, ok := c.byPrefix(prefix)
	if !ok {
		return catalogSession{}, backend.ServiceRecord{}, "", unknown
	}
	return c, svc, inner, nil
}

// CompletionInput is completion/complete: the reference (a prompt's name or a resource
// template's URI), the argument being typed, and the arguments already chosen.
type CompletionInput struct {
	RefType  string // "ref/prompt" or "ref/resource"
	Ref      string
	Argument json.RawMessage
	Context  json.RawMessage
}

// CompleteBound completes an argument of a service's prompt or resource template (asked of the
// service) or of the hub's playbook template (the deck's playbook ids). A reference the deck
// does not have completes to nothing.
func (s *Hub) CompleteBound(ctx context.Context, sessionID string, in CompletionInput) (values []string, total int, more bool, err error) {
	if _, err := backend.RequireRead(ctx, "complete arguments"); err != nil {
		return nil, 0, false, err
	}
	var arg struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	_ = json.Unmarshal(in.Argument, &arg)
	if in.RefType == "ref/resource" && in.Ref == PlaybookTemplate {
		return s.completePlaybooks(ctx, sessionID, arg.Value)
	}
	var c catalogSession
	var svc backend.ServiceRecord
	ref := map[string]string{"type": in.RefType}
	switch {
	case in.RefType == "ref/prompt":
		var inner string
		if c, svc, inner, err = s.servicePrompt(ctx, sessionID, in.Ref); err != nil {
			return nil, 0, false, nil
		}
		ref["name"] = inner
	case in.RefType == "ref/resource" && strings.HasPrefix(in.Ref, serviceURIPrefix):
		var inner string
		if c, svc, inner, err = s.serviceResource(ctx, sessionID, in.Ref); err != nil {
			return nil, 0, false, nil
		}
		ref["uri"] = inner
	default:
		return nil, 0, false, nil
	}
	params := map[string]any{"ref": ref, "argument": in.Argument}
	if len(in.Context) > 0 && string(in.Context) != "null" {
		params["context"] = in.Context
	}
	raw, err := s.forward(ctx, c, svc.ID, "completion/complete", params)
	if lacksCapability(err) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	var res struct {
		Completion struct {
			Values  []string `json:"values"`
			Total   int      `json:"total"`
			HasMore bool     `json:"hasMore"`
		} `json:"completion"`
	}
	if json.Unmarshal(raw, &res) != nil {
		return nil, 0, false, backend.Errorf(backend.CodeDownstreamError, "%s answered completion/complete with a malformed result", svc.Name)
	}
	return res.Completion.Values, res.Completion.Total, res.Completion.HasMore, nil
}

// completePlaybooks offers the deck's playbook ids that start with prefix (at most 100).
func (s *Hub) completePlaybooks(ctx context.Context, sessionID, prefix string) ([]string, int, bool, error) {
	c, bound, err := s.catalogFor(ctx, sessionID)
	if err != nil || !bound {
		return nil, 0, false, err
	}
	v, err := s.deckViews(ctx, c.deck)
	if err != nil {
		return nil, 0, false, err
	}
	var out []string
	for _, p := range v.playbooks {
		if strings.HasPrefix(strings.ToLower(p.ID), strings.ToLower(prefix)) {
			out = append(out, p.ID)
		}
	}
	total := len(out)
	return out[:min(len(out), 100)], total, total > 100, nil
}

func mustRaw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func cmpStr(s, fallback string) string {
	if s != "" {
		return s
	}
	return fallback
}
