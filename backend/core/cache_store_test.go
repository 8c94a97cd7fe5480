package core_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

// storeReads are the Store methods that change no row the core caches, besides the Get… and
// List… lookups. Every other Store method counts as a write.
var storeReads = map[string]string{
	"Ping":                  "checks the connection",
	"LockDeck":              "takes a row lock, writes nothing",
	"DecksLinking":          "lookup",
	"ToolPins":              "lookup",
	"ToolHolds":             "lookup",
	"TokenByHash":           "lookup",
	"PlaybooksDependingOn":  "lookup",
	"LinkedCards":           "lookup",
	"Subscribe":             "listens to the change feed",
	"DeckChoosesCredential": "lookup",
	"SamplingAllowed":       "lookup, read uncached on every call that could sample",
	"DeckProjection":        "lookup, cached with the deck (caches.projections)",
	"ResourceSubscribers":   "lookup",

	"LockPlaybook":           "takes a row lock, writes nothing",
	"PlaybookReviewRequired": "lookup, read uncached by agents' playbook writes",
	"DeckPlaybookReview":     "lookup",
	"SignalsOfProposal":      "lookup",
	"OpenByToken":            "lookup",
	"RateLimitSettings":      "lookup, read once per call plan",
	"PlaybookFetchStats":     "lookup",
	"PersonBySignIn":         "lookup",
	"FounderAdmin":           "lookup",
	"PersonCards":            "lookup",
	"PersonalSecret":         "lookup",
	"PersonalSecretIDs":      "lookup",
	"PersonOAuths":           "lookup",
}

// unwrappedWrites are the writes invalidatingStore may leave to the embedded Store, each with
// the reason no cached row goes stale.
var unwrappedWrites = map[string]string{
	"RecordToolHold":        "held definitions are read from the Store each time, never cached",
	"DropUnservedToolHolds": "held definitions are read from the Store each time, never cached",
	"TouchToken":            "the caller updates the cached token in place (caches.touchToken)",
	"TouchSession":          "the caller updates the cached session in place (caches.touchSession)",
	"UpdateSecretKeyState":  "runs at start-up, before any request fills a cache, and re-seals values without changing them",
	"CreateExecAudit":       "exec audits are not cached",
	"FinishExecAudit":       "exec audits are not cached",
	"CreateSignInCode":      "sign-in codes are not cached",
	"ConsumeSignInCode":     "sign-in codes are not cached",

	// The tool-call audit trail (audit.go).
	"InsertToolCalls":        "tool-call audit entries are not cached",
	"PruneToolCalls":         "tool-call audit entries are not cached",
	"SetDeckArgumentCapture": "audit settings are read by the audit insert only, never cached",

	"CreateProposal":        "proposals are not cached",
	"SetDeckPlaybookReview": "review settings are read uncached by agents' playbook writes",
	"UpdateProposal":        "proposals are not cached",
	"CreateSignal":          "feedback signals are not cached",
	"SetSignals":            "feedback signals are not cached",
	"RecordPlaybookFetch":   "fetch events are not cached",
	"SubscribeResource":     "resource subscriptions are not cached",
	"UnsubscribeResource":   "resource subscriptions are not cached",
	"PrunePlaybookFetches":  "fetch events are not cached",
}

// TestInvalidatingStoreWrapsEveryWrite: invalidatingStore embeds Store, so a new write method
// compiles without dropping what it makes stale, and a replica would serve the old row until
// the change feed's notification arrives. Every Store method that writes must be defined on
// invalidatingStore itself (not promoted from the embedded Store) or be listed, with a reason,
// in unwrappedWrites.
func TestInvalidatingStoreWrapsEveryWrite(t *testing.T) {
	wrapped := methodsDeclaredOn(t, "invalidatingStore")
	st := reflect.TypeFor[backend.Store]()
	methods := map[string]bool{}
	for i := range st.NumMethod() {
		name := st.Method(i).Name
		methods[name] = true
		if strings.HasPrefix(name, "Get") || strings.HasPrefix(name, "List") || storeReads[name] != "" {
			if wrapped[name] {
				t.Errorf("Store.%s is listed as a read but invalidatingStore wraps it: remove it from storeReads", name)
			}
			continue
		}
		_, exempt := unwrappedWrites[name]
		switch {
		case !wrapped[name] && !exempt:
			t.Errorf("Store.%s writes but invalidatingStore does not wrap it: define it in cache_store.go "+
				"and drop what it changes, or list it in storeReads or unwrappedWrites with the reason", name)
		case wrapped[name] && exempt:
			t.Errorf("Store.%s is wrapped: remove it from unwrappedWrites", name)
		}
	}
	for _, list := range []map[string]string{storeReads, unwrappedWrites} {
		for name := range list {
			if !methods[name] {
				t.Errorf("%s is listed but is not a Store method", name)
			}
		}
	}
	for name := range wrapped {
		if !methods[name] && !slices.Contains([]string{"changed", "after"}, name) {
			t.Errorf("invalidatingStore.%s is not a Store method", name)
		}
	}
}

// methodsDeclaredOn returns the names of the methods the package's own source declares on the
// pointer type *typ; methods promoted from an embedded field are not among them.
func methodsDeclaredOn(t *testing.T, typ string) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("parsing %s: %v", name, err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 {
				continue
			}
			if star, ok := fn.Recv.List[0].Type.(*ast.StarExpr); ok {
				if id, ok := star.X.(*ast.Ident); ok && id.Name == typ {
					out[fn.Name.Name] = true
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no method declared on *%s", typ)
	}
	return out
}
