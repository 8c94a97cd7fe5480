// Package toolsearch ranks downstream tools for a query with Okapi BM25, over an in-memory
// bleve index of their names, titles, descriptions, parameter names and services. It implements
// backend.ToolRanker; the core decides which tools an index holds and when to build a new one.
package toolsearch

import (
	"context"
	"errors"
	"strings"
	"unicode"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/agent-deck/agent-deck/backend"
)

// fields are the fields of a tool document and how much a match in each counts: a tool is
// mostly what it is named and says it does; a parameter name or its service's name alone is a
// weaker sign.
var fields = []struct {
	name  string
	boost float64
	text  func(backend.ToolDoc) string
}{
	{"name", 3, func(d backend.ToolDoc) string { return words(d.Name) }},
	{"title", 2, func(d backend.ToolDoc) string { return words(d.Title) }},
	{"description", 1, func(d backend.ToolDoc) string { return words(d.Description) }},
	{"params", 0.5, func(d backend.ToolDoc) string { return words(d.Params) }},
	{"service", 2, func(d backend.ToolDoc) string { return words(d.Service) }},
}

// Ranker builds BM25 indexes. The zero value is ready to use.
type Ranker struct{}

var _ backend.ToolRanker = Ranker{}

// New returns a ranker.
func New() Ranker { return Ranker{} }

// newMapping is the index mapping: every field English text (lower case, stop words dropped,
// Porter stems), scored with BM25, nothing stored (hits name documents by id only).
func newMapping() *mapping.IndexMappingImpl {
	m := bleve.NewIndexMapping()
	m.ScoringModel = index.BM25Scoring
	m.DefaultAnalyzer = en.AnalyzerName
	doc := bleve.NewDocumentStaticMapping()
	for _, f := range fields {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = en.AnalyzerName
		fm.Store = false
		fm.IncludeTermVectors = false
		fm.IncludeInAll = false
		doc.AddFieldMappingsAt(f.name, fm)
	}
	m.DefaultMapping = doc
	return m
}

// Index builds an in-memory index of docs in one batch.
func (Ranker) Index(docs []backend.ToolDoc) (backend.ToolIndex, error) {
	idx, err := bleve.NewUsing("", newMapping(), scorch.Name, scorch.Name, map[string]any{"path": ""})
	if err != nil {
		return nil, err
	}
	b := idx.NewBatch()
	for _, d := range docs {
		body := make(map[string]any, len(fields))
		for _, f := range fields {
			body[f.name] = f.text(d)
		}
		if err := b.Index(d.ID, body); err != nil {
			_ = idx.Close()
			return nil, err
		}
	}
	if err := idx.Batch(b); err != nil {
		_ = idx.Close()
		return nil, err
	}
	return &toolIndex{idx: idx, size: len(docs)}, nil
}

type toolIndex struct {
	idx  bleve.Index
	size int
}

// Search matches any word of q in any field, each field weighed by its boost.
func (t *toolIndex) Search(ctx context.Context, q string, limit int) ([]backend.SearchHit, int, error) {
	q = words(q)
	if strings.TrimSpace(q) == "" || t.size == 0 || limit <= 0 {
		return nil, 0, nil
	}
	var any []query.Query
	for _, f := range fields {
		m := bleve.NewMatchQuery(q)
		m.SetField(f.name)
		m.SetBoost(f.boost)
		any = append(any, m)
	}
	req := bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery(any...), limit, 0, false)
	res, err := t.idx.SearchInContext(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		return nil, 0, errors.Join(errors.New("searching the tool index"), err)
	}
	hits := make([]backend.SearchHit, len(res.Hits))
	for i, h := range res.Hits {
		hits[i] = backend.SearchHit{ID: h.ID, Score: h.Score}
	}
	return hits, int(res.Total), nil
}

func (t *toolIndex) Close() error { return t.idx.Close() }

// words splits identifiers into words, so create_merge_request and createMergeRequest read as
// "create merge request" to the analyzer, as a query would say it.
func words(s string) string {
	var b strings.Builder
	var prev rune
	for _, r := range s {
		switch {
		case r == '_' || r == '-' || r == '.' || r == '/':
			r = ' '
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}
