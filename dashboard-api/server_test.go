package dashboardapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"html"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/authserver"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/postgres"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
	"github.com/agent-deck/agent-deck/backend/secret"
	"github.com/agent-deck/agent-deck/tests/resttest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// syncBuffer collects log output written from many handler goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testServer is the REST API over real HTTP on a random port, on a fresh real database.
type testServer struct {
	url   string
	svc   *core.Hub
	store *postgres.Store
	admin string // admin token secret
	logs  *syncBuffer
	// api sends the requests as admin; it keeps every answer body, for secret scans.
	api *resttest.Client
}

func newTestServer(t testing.TB, opts Options) *testServer {
	t.Helper()
	st := pgtest.NewStore(t)
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	sealer, err := secret.NewSealer(key)
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	svc := core.NewHub(st, nil, sealer, nil, logger, core.Config{Markdown: escapingRenderer{}})
	opts.Logger = logger
	if opts.AuthServer == nil {
		opts.AuthServer = authserver.New(svc.Store(), svc, nil, logger, authserver.Config{})
	}
	hs := httptest.NewServer(NewRouter(svc, opts))
	t.Cleanup(hs.Close)
	s := &testServer{url: hs.URL, svc: svc, store: st, logs: logs, api: &resttest.Client{URL: hs.URL,
		HTTP: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}}
	s.admin = s.newToken(t, "admin", backend.ScopeAdmin)
	s.api.Token = s.admin
	return s
}

// newToken creates a token directly through the service, as the composition root does.
func (s *testServer) newToken(t testing.TB, name string, scope backend.Scope) string {
	t.Helper()
	ctx := backend.WithActor(context.Background(), backend.SystemActor)
	tok, err := s.svc.CreateToken(ctx, core.TokenInput{Name: name, Scope: scope})
	if err != nil {
		t.Fatalf("creating token %s: %v", name, err)
	}
	return tok.Secret
}

// response is what a test needs of an HTTP answer.
type response struct {
	status int
	header http.Header
	body   []byte
}

// errorCode returns the code of a problem document, "" otherwise.
func (r response) errorCode() backend.Code {
	return r.errorBody().Code
}

// errorBody decodes a problem document (the zero Problem for another body).
func (r response) errorBody() Problem {
	var p Problem
	_ = json.Unmarshal(r.body, &p)
	return p
}

// do sends a request. body may be nil, a string or []byte (sent as is), or a value to encode.
func (s *testServer) do(t testing.TB, token, method, path string, body any) response {
	t.Helper()
	return answer(s.api.Do(t, token, method, path, body))
}

// must sends a request as admin and fails the test unless the status matches; it decodes the
// body into out when out is not nil.
func (s *testServer) must(t testing.TB, want int, method, path string, body, out any) response {
	t.Helper()
	return answer(s.api.Must(t, want, method, path, body, out))
}

func answer(a resttest.Answer) response {
	return response{status: a.Status, header: a.Header, body: a.Body}
}

// collection is a full listing of what the database holds, read through the API, used to
// prove that refused requests change nothing.
type collection struct {
	Decks       []core.DeckSnapshot
	Services    []backend.ServiceCard
	Credentials []backend.Credential
	Playbooks   []backend.Playbook
	Versions    map[string][]backend.PlaybookVersion
	Tokens      []backend.Token
}

func (s *testServer) snapshot(t testing.TB) collection {
	t.Helper()
	var c collection
	var decks []backend.Deck
	s.must(t, http.StatusOK, "GET", "/api/v1/decks", nil, &decks)
	for _, d := range decks {
		var snap core.DeckSnapshot
		s.must(t, http.StatusOK, "GET", "/api/v1/decks/"+d.ID+"/snapshot", nil, &snap)
		c.Decks = append(c.Decks, snap)
	}
	s.must(t, http.StatusOK, "GET", "/api/v1/services", nil, &c.Services)
	s.must(t, http.StatusOK, "GET", "/api/v1/credentials", nil, &c.Credentials)
	s.must(t, http.StatusOK, "GET", "/api/v1/playbooks", nil, &c.Playbooks)
	c.Versions = map[string][]backend.PlaybookVersion{}
	for _, p := range c.Playbooks {
		var vs []backend.PlaybookVersion
		s.must(t, http.StatusOK, "GET", "/api/v1/playbooks/"+p.ID+"/versions", nil, &vs)
		c.Versions[p.ID] = vs
	}
	s.must(t, http.StatusOK, "GET", "/api/v1/tokens", nil, &c.Tokens)
	for i := range c.Tokens {
		c.Tokens[i].LastUsedAt = nil // moves with every use of a token
	}
	return c
}

// routesHit returns "METHOD /route/:template" for every request the server matched to a route,
// read from its request log.
func (s *testServer) routesHit(t testing.TB) map[string]bool {
	t.Helper()
	hit := map[string]bool{}
	for _, line := range strings.Split(s.logs.String(), "\n") {
		var rec struct {
			Msg    string `json:"msg"`
			Method string `json:"method"`
			Route  string `json:"route"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "http request" && rec.Route != "" {
			hit[rec.Method+" "+rec.Route] = true
		}
	}
	return hit
}

// escapingRenderer stands in for the markdown renderer the composition root passes (package
// markdown, tested on its own): it escapes the text into a paragraph.
type escapingRenderer struct{}

func (escapingRenderer) RenderHTML(src string) string { return "<p>" + html.EscapeString(src) + "</p>" }
