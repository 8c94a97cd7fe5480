package backend

import "context"

// ToolDoc is one downstream tool as a search sees it: its id and the texts a query is matched
// against, field by field, so the ranker can weigh a name above a parameter.
type ToolDoc struct {
	ID          string
	Name        string
	Title       string
	Description string
	// Params are the names of the tool's input parameters, space-separated.
	Params string
	// Service is the name and description of the service the tool belongs to.
	Service string
}

// SearchHit is one document a search found, with its relevance (higher is better).
type SearchHit struct {
	ID    string
	Score float64
}

// ToolRanker builds search indexes over tools. The adapter (toolsearch) owns the ranking
// library; the core declares the port so it needs none.
type ToolRanker interface {
	// Index builds an index of docs; the caller closes it when it is replaced.
	Index(docs []ToolDoc) (ToolIndex, error)
}

// ToolIndex is one built index.
type ToolIndex interface {
	// Search returns at most limit hits, best first, and how many documents matched in all.
	Search(ctx context.Context, query string, limit int) (hits []SearchHit, total int, err error)
	// Close releases the index.
	Close() error
}
