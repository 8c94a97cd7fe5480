package core

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// Tool search: list_service_tools with a query ranks the enabled tools of every service on the
// bound deck (BM25 over names, titles, descriptions, parameter names and services, through the
// ToolRanker port) and answers the best few with their input schemas, within a token budget.
// The tools are the ones the caller could call: the deck's rules and the service's disabled tools
// apply, agent:read sees only read-only tools, and a held tool is shown as held, by its name and
// approved text only. The index is built from the tool lists as they are now and kept while they
// stay the same, so it follows a downstream's list_changed and every change of rules or pins.

// Bounds of a tool search.
const (
	DefaultSearchLimit = 5
	MaxSearchLimit     = 20
	// SearchBudget is how many model tokens (o200k, estimated from above) an answer may take.
	SearchBudget = 4000
	// maxSearchQueryChars bounds the query text.
	maxSearchQueryChars = 500
	// maxSearchIndexes bounds the indexes kept (one per deck and scope in use).
	maxSearchIndexes = 16
)

// ToolSearchInput is a search over the bound deck's tools; Service narrows it to one service.
type ToolSearchInput struct {
	Query   string
	Limit   int
	Service string
}

// ToolSearchResult is the answer: the best tools, and how many matched in all.
type ToolSearchResult struct {
	Query string `json:"query"`
	// Matched is how many of the searched tools match any word of the query.
	Matched int `json:"matched"`
	// Searched is how many tools the search went through.
	Searched int          `json:"searched"`
	Tools    []ToolMatch  `json:"tools"`
	More     string       `json:"more,omitempty"`
	Skipped  []SkippedSvc `json:"not_searched,omitempty"`
}

// ToolMatch is one tool found: its service and its definition as the downstream sent it (name,
// description, input schema, annotations), or, when the answer has no room left for it, its
// name only (Compact).
type ToolMatch struct {
	Service    string          `json:"service"`
	Name       string          `json:"name"`
	Tool       json.RawMessage `json:"tool,omitempty"`
	Compact    bool            `json:"schema_omitted,omitempty"`
	Held       bool            `json:"held,omitempty"`
	HeldReason string          `json:"held_reason,omitempty"`
}

// SkippedSvc is a service whose tools could not be searched now, and why.
type SkippedSvc struct {
	Service string       `json:"service"`
	Code    backend.Code `json:"code"`
	Message string       `json:"message"`
	Hint    string       `json:"hint,omitempty"`
}

// searchDoc is one searchable tool with what an answer shows of it.
type searchDoc struct {
	doc   backend.ToolDoc
	match ToolMatch
}

// SearchBoundTools is list_service_tools with a query: the bound deck's tools ranked by
// relevance to it.
func (s *Hub) SearchBoundTools(ctx context.Context, sessionID string, in ToolSearchInput) (ToolSearchResult, error) {
	a, err := backend.RequireRead(ctx, "search service tools")
	if err != nil {
		return ToolSearchResult{}, err
	}
	if err := checkSearchInput(&in); err != nil {
		return ToolSearchResult{}, err
	}
	if s.cfg.ToolRanker == nil {
		return ToolSearchResult{}, backend.Errorf(backend.CodeUnavailable, "tool search is not available in this process").
			WithHint("call list_service_tools with a serviceId for each service on the deck")
	}
	sess, err := s.boundSession(ctx, sessionID)
	if err != nil {
		return ToolSearchResult{}, err
	}
	ids, err := s.searchServices(ctx, sess, in.Service)
	if err != nil {
		return ToolSearchResult{}, err
	}
	tools, skipped := s.deckTools(ctx, a, ids, s.boundPlans(sessionID))
	docs := searchDocs(tools)
	e, err := s.searchIndex(sess.DeckID, a.Scope == backend.ScopeAgentRead, docs)
	if err != nil {
		return ToolSearchResult{}, backend.Internal("building the tool index", err)
	}
	hits, total, err := e.idx.Search(ctx, in.Query, in.Limit)
	e.mu.RUnlock()
	if err != nil {
		return ToolSearchResult{}, backend.Internal("searching tools", err)
	}
	out := renderSearch(in, docs, hits, total)
	out.Skipped = skipped
	return out, nil
}

// checkSearchInput trims the query and bounds the limit.
func checkSearchInput(in *ToolSearchInput) error {
	in.Query = strings.TrimSpace(in.Query)
	switch {
	case in.Query == "":
		return backend.Invalid("query", "is empty: say what the tool should do, in a few words").
			WithHint("for example query: \"open a pull request\"")
	case len([]rune(in.Query)) > maxSearchQueryChars:
		return backend.Invalid("query", "is longer than %d characters", maxSearchQueryChars)
	case in.Limit < 0 || in.Limit > MaxSearchLimit:
		return backend.Invalid("limit", "must be between 1 and %d, got %d", MaxSearchLimit, in.Limit)
	case in.Limit == 0:
		in.Limit = DefaultSearchLimit
	}
	return nil
}

// searchServices returns the ids of the services a search goes through: every service on the
// deck, in deck order, or the one named.
func (s *Hub) searchServices(ctx context.Context, sess backend.MCPSession, ref string) ([]string, error) {
	links, err := s.deckLinks(ctx, sess.DeckID)
	if err != nil {
		return nil, backend.StoreErr("listing deck cards", err)
	}
	ids := idsOfType(links, backend.CardService)
	if strings.TrimSpace(ref) == "" {
		return ids, nil
	}
	id, ok, err := findLinked(ctx, s.store, backend.CardService, ids, strings.TrimSpace(ref))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, s.notOnBoundDeck(ctx, sess, backend.CardService, strings.TrimSpace(ref), ids)
	}
	return []string{id}, nil
}

// searchDocs are the deck's tools as documents: a held tool by its name and approved text only.
func searchDocs(tools []deckTool) []searchDoc {
	out := make([]searchDoc, 0, len(tools))
	for _, t := range tools {
		d := searchDoc{match: ToolMatch{Service: t.service.Name, Name: t.tool.Name, Tool: t.tool.Raw}}
		text := t.tool.Raw
		if t.held != "" {
			d.match.Held, d.match.HeldReason, d.match.Tool = true, t.held, nil
			text = t.approved
		}
		d.doc = toolDoc(t.service.ID+"\x00"+t.tool.Name, t.tool.Name, t.service.Name+" "+t.service.Description, text)
		out = append(out, d)
	}
	return out
}

// toolDoc reads the searchable texts of a raw tool definition (nil: the name alone).
func toolDoc(id, name, service string, raw json.RawMessage) backend.ToolDoc {
	d := backend.ToolDoc{ID: id, Name: name, Service: service}
	var t struct {
		Title       string `json:"title"`
		Description string `json:"description"`
		InputSchema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"inputSchema"`
		Annotations struct {
			Title string `json:"title"`
		} `json:"annotations"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &t) != nil {
		return d
	}
	d.Title = strings.TrimSpace(t.Title + " " + t.Annotations.Title)
	d.Description = t.Description
	params := make([]string, 0, len(t.InputSchema.Properties))
	for p := range t.InputSchema.Properties {
		params = append(params, p)
	}
	sort.Strings(params)
	d.Params = strings.Join(params, " ")
	return d
}

// renderSearch fills the answer in rank order: each tool in full while the budget allows, then
// by name only.
func renderSearch(in ToolSearchInput, docs []searchDoc, hits []backend.SearchHit, total int) ToolSearchResult {
	byID := make(map[string]ToolMatch, len(docs))
	for _, d := range docs {
		byID[d.doc.ID] = d.match
	}
	out := ToolSearchResult{Query: in.Query, Matched: total, Searched: len(docs), Tools: []ToolMatch{}}
	used := 200 // the envelope and the more line
	for _, h := range hits {
		m, ok := byID[h.ID]
		if !ok {
			continue
		}
		cost := estimateTokens(string(m.Tool)) + estimateTokens(m.Service+m.Name+m.HeldReason) + 16
		if used+cost > SearchBudget {
			m.Tool, m.Compact = nil, !m.Held
			cost = estimateTokens(m.Service+m.Name+m.HeldReason) + 16
		}
		if used+cost > SearchBudget {
			break
		}
		used += cost
		out.Tools = append(out.Tools, m)
	}
	if rest := total - len(out.Tools); rest > 0 {
		out.More = fmt.Sprintf("%d more tools matched; use more precise words, or limit up to %d", rest, MaxSearchLimit)
	}
	if total == 0 {
		out.More = "no tool matched; try other words, or list_service_tools with a serviceId from get_bound_deck"
	}
	return out
}

// indexCache keeps the tool indexes in use, by deck, scope and the exact tools they hold, so a
// search over unchanged tool lists reuses its index; a changed list makes a new one.
type indexCache struct {
	mu      sync.Mutex
	byKey   map[string]*indexEntry
	current map[string]string // deck and scope → key of its newest index
}

// indexEntry is one index; searches hold mu for reading, so it is closed only once none runs.
type indexEntry struct {
	mu   sync.RWMutex
	idx  backend.ToolIndex
	used time.Time
}

// searchIndex returns the entry of the index of docs, read-locked for the caller to search and
// unlock; it is built now unless the same docs were indexed before.
func (s *Hub) searchIndex(deckID string, readOnly bool, docs []searchDoc) (*indexEntry, error) {
	slot := fmt.Sprintf("%s|%t", deckID, readOnly)
	h := sha256.New()
	for _, d := range docs {
		for _, f := range []string{d.doc.ID, d.doc.Name, d.doc.Title, d.doc.Description, d.doc.Params, d.doc.Service} {
			h.Write([]byte(f))
			h.Write([]byte{0})
		}
	}
	key := slot + "|" + hex.EncodeToString(h.Sum(nil))
	c := s.indexes
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok {
		e.used = time.Now()
		e.mu.RLock()
		return e, nil
	}
	plain := make([]backend.ToolDoc, len(docs))
	for i, d := range docs {
		plain[i] = d.doc
	}
	idx, err := s.cfg.ToolRanker.Index(plain)
	if err != nil {
		return nil, err
	}
	if old, ok := c.current[slot]; ok {
		c.drop(old) // the deck's tools changed: its old index will not be asked again
	}
	for len(c.byKey) >= maxSearchIndexes {
		c.dropOldest()
	}
	e := &indexEntry{idx: idx, used: time.Now()}
	c.byKey[key] = e
	c.current[slot] = key
	e.mu.RLock()
	return e, nil
}

func newIndexCache() *indexCache {
	return &indexCache{byKey: map[string]*indexEntry{}, current: map[string]string{}}
}

// drop closes an index once the searches running on it are done.
func (c *indexCache) drop(key string) {
	if e, ok := c.byKey[key]; ok {
		delete(c.byKey, key)
		e.mu.Lock()
		_ = e.idx.Close()
		e.mu.Unlock()
	}
}

// close closes every index.
func (c *indexCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.byKey {
		c.drop(k)
	}
}

func (c *indexCache) dropOldest() {
	var oldest string
	var at time.Time
	for k, e := range c.byKey {
		if oldest == "" || e.used.Before(at) {
			oldest, at = k, e.used
		}
	}
	c.drop(oldest)
}
