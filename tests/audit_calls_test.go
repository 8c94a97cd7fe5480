package tests

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// auditCalls polls GET /tool-calls (query q) until it holds want entries: entries are written
// asynchronously, off the call path.
func auditCalls(t *testing.T, s *mcpStack, q url.Values, want int) []backend.ToolCall {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		a := s.api().Do(t, s.AdminToken, "GET", "/api/v1/tool-calls?"+q.Encode(), nil)
		if a.Status != http.StatusOK {
			t.Fatalf("GET /tool-calls?%s: status %d: %s", q.Encode(), a.Status, a.Body)
		}
		var page backend.ToolCallPage
		if err := json.Unmarshal(a.Body, &page); err != nil {
			t.Fatal(err)
		}
		if len(page.Calls) >= want || time.Now().After(deadline) {
			if len(page.Calls) != want {
				t.Fatalf("GET /tool-calls?%s: %d entries, want %d: %s", q.Encode(), len(page.Calls), want, a.Body)
			}
			return page.Calls
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAuditToolCalls: every proxied call, over MCP and REST, refusals after authentication
// included, lands in the audit trail with who, where, what and how it ended; never the
// arguments unless the deck captures them, and then redacted.
func TestAuditToolCalls(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	peer := startHTTPPeer(t)
	f := s.seedDeck(t, "dev", peer)
	canary := "audit-canary-" + randHex(8)
	ctx := s.adminCtx()
	keyed, err := s.svc.CreateService(ctx, core.ServiceInput{Name: "keyed", Type: backend.ServiceRemote, URL: peer,
		Headers: map[string]string{"X-Api-Key": canary}})
	must(t, err)
	_, err = s.svc.LinkCard(ctx, core.LinkCardInput{CardRef: core.CardRef{Deck: f.Deck.ID, CardType: backend.CardService, CardID: keyed.ID}})
	must(t, err)
	other := s.seedDeck(t, "other", peer)
	tok, err := s.svc.CreateToken(ctx, core.TokenInput{Name: "audit-agent", Scope: backend.ScopeAgent})
	must(t, err)

	c := s.connect(t, tok.Secret, nil, "")
	c.ok("bind_workspace", map[string]any{"workspaceRoot": "/audit", "deckId": "dev"}, nil)
	call := func(service, tool string, args map[string]any) {
		c.call("call_service_tool", map[string]any{"serviceId": service, "toolName": tool, "arguments": args})
	}
	call(f.Service.ID, "echo", map[string]any{"message": canary})
	call(f.Service.ID, "fail", map[string]any{"message": "boom"})
	call(f.Service.ID, "ecko", nil)
	call(other.Service.ID, "echo", map[string]any{"message": "not on this deck"})

	rest := func(deck string, args map[string]any) {
		a := s.api().Do(t, tok.Secret, "POST", "/api/v1/services/keyed/call",
			map[string]any{"tool_name": "echo", "deck": deck, "arguments": args})
		if a.Status != http.StatusOK {
			t.Fatalf("REST call: %d %s", a.Status, a.Body)
		}
	}
	rest("dev", map[string]any{"message": "before capture " + canary})
	var set core.DeckAuditSettings
	a := s.api().Do(t, s.AdminToken, "PUT", "/api/v1/decks/dev/audit", map[string]any{"capture_arguments": true})
	if a.Status != http.StatusOK || json.Unmarshal(a.Body, &set) != nil || !set.CaptureArguments {
		t.Fatalf("turning capture on: %d %s", a.Status, a.Body)
	}
	rest("dev", map[string]any{"message": "captured " + canary})

	all := auditCalls(t, s, url.Values{}, 6)
	byOrder := slices.Clone(all)
	slices.Reverse(byOrder) // oldest first: the order the calls were made
	type want struct {
		name, via, service, tool string
		outcome                  backend.CallOutcome
		code                     backend.Code
		captured                 bool
	}
	wants := []want{
		{"mcp ok", "mcp", "dev-peer", "echo", backend.OutcomeOK, "", false},
		{"mcp isError", "mcp", "dev-peer", "fail", backend.OutcomeIsError, "", false},
		{"mcp unknown tool", "mcp", "dev-peer", "ecko", backend.OutcomeError, backend.CodeNotFound, false},
		{"mcp refused: not on the bound deck", "mcp", other.Service.ID, "echo", backend.OutcomeError, backend.CodeNotOnBoundDeck, false},
		{"rest before capture", "rest", "keyed", "echo", backend.OutcomeOK, "", false},
		{"rest captured", "rest", "keyed", "echo", backend.OutcomeOK, "", true},
	}
	for i, w := range wants {
		t.Run(w.name, func(t *testing.T) {
			e := byOrder[i]
			if e.TokenName != "audit-agent" || e.DeckName != "dev" || e.ServiceName != w.service || e.Tool != w.tool ||
				e.Outcome != w.outcome || e.ErrorCode != w.code || e.At.IsZero() || e.DurationMS <= 0 {
				t.Errorf("entry %+v, want %+v", e, w)
			}
			if w.via == "mcp" && (e.SessionID != c.sessionID() || e.ClientName != "agent-deck-tests" || e.DeckID != f.Deck.ID) {
				t.Errorf("MCP entry lacks its session, client or deck: %+v", e)
			}
			if w.via == "rest" && (e.SessionID != "" || e.DeckID != f.Deck.ID) {
				t.Errorf("REST entry: %+v", e)
			}
			if (w.outcome != backend.OutcomeError) != (e.ResultBytes > 0) {
				t.Errorf("result_bytes %d for outcome %s", e.ResultBytes, e.Outcome)
			}
			if w.captured != (e.Arguments != nil) {
				t.Errorf("arguments %s, want captured=%v", e.Arguments, w.captured)
			}
			if w.captured && !strings.Contains(string(e.Arguments), `"message"`) {
				t.Errorf("captured arguments lost their shape: %s", e.Arguments)
			}
		})
	}
	t.Run("no secret in the trail", func(t *testing.T) {
		a := s.api().Do(t, s.AdminToken, "GET", "/api/v1/tool-calls", nil)
		if strings.Contains(string(a.Body), canary) {
			t.Errorf("the trail holds a secret: %s", a.Body)
		}
	})
	t.Run("filters", func(t *testing.T) {
		cases := map[string]struct {
			q    url.Values
			want int
		}{
			"service by name":     {url.Values{"service": {"KEYED"}}, 2},
			"service by id":       {url.Values{"service": {f.Service.ID}}, 3},
			"deck":                {url.Values{"deck": {"dev"}}, 6},
			"other deck":          {url.Values{"deck": {"other"}}, 0},
			"session":             {url.Values{"session": {c.sessionID()}}, 4},
			"tool":                {url.Values{"tool": {"fail"}}, 1},
			"outcome":             {url.Values{"outcome": {"error"}}, 2},
			"since a duration":    {url.Values{"since": {"1h"}}, 6},
			"until the past":      {url.Values{"until": {"1h"}}, 0},
			"since a time":        {url.Values{"since": {time.Now().Add(time.Hour).Format(time.RFC3339)}}, 0},
			"service and outcome": {url.Values{"service": {"dev-peer"}, "outcome": {"is_error"}}, 1},
			"token by name":       {url.Values{"token": {"AUDIT-agent"}}, 6},
			"token by id":         {url.Values{"token": {tok.ID}}, 6},
			"another token":       {url.Values{"token": {"admin"}}, 0},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) { auditCalls(t, s, tc.q, tc.want) })
		}
	})
	t.Run("cursor paging walks every entry once", func(t *testing.T) {
		var seen []int64
		q := url.Values{"limit": {"4"}}
		for range 3 {
			var page backend.ToolCallPage
			a := s.api().Do(t, s.AdminToken, "GET", "/api/v1/tool-calls?"+q.Encode(), nil)
			if err := json.Unmarshal(a.Body, &page); err != nil {
				t.Fatal(err)
			}
			for _, e := range page.Calls {
				seen = append(seen, e.ID)
			}
			// The Link header names the same next page as next_cursor.
			q2 := url.Values{"limit": {"4"}, "cursor": {page.NextCursor}}
			if link, want := a.Header.Get("Link"), "</api/v1/tool-calls?"+q2.Encode()+`>; rel="next"`; page.NextCursor != "" && link != want ||
				page.NextCursor == "" && link != "" {
				t.Errorf("Link %q with next_cursor %q, want %q", link, page.NextCursor, want)
			}
			if page.NextCursor == "" {
				break
			}
			q.Set("cursor", page.NextCursor)
		}
		var ids []int64
		for _, e := range all {
			ids = append(ids, e.ID)
		}
		if !slices.Equal(seen, ids) {
			t.Errorf("paged ids %v, want %v", seen, ids)
		}
	})
	t.Run("one entry", func(t *testing.T) {
		want := byOrder[1]
		var got backend.ToolCall
		a := s.api().Do(t, s.AdminToken, "GET", fmt.Sprintf("/api/v1/tool-calls/%d", want.ID), nil)
		if a.Status != http.StatusOK || json.Unmarshal(a.Body, &got) != nil {
			t.Fatalf("GET one entry: %d %s", a.Status, a.Body)
		}
		if got.ID != want.ID || got.Tool != "fail" || got.Outcome != backend.OutcomeIsError || got.SessionID != c.sessionID() {
			t.Errorf("entry %+v, want %+v", got, want)
		}
		for _, ref := range []string{"999999999", "x", "0"} {
			if a := s.api().Do(t, s.AdminToken, "GET", "/api/v1/tool-calls/"+ref, nil); a.Status != http.StatusNotFound && a.Status != http.StatusBadRequest {
				t.Errorf("GET /tool-calls/%s: %d %s", ref, a.Status, a.Body)
			}
		}
		if a := s.api().Do(t, tok.Secret, "GET", fmt.Sprintf("/api/v1/tool-calls/%d", want.ID), nil); a.Status != http.StatusForbidden {
			t.Errorf("an agent read an entry: %d", a.Status)
		}
	})
	t.Run("counts per tool and time bucket", func(t *testing.T) {
		var st core.ToolCallStats
		a := s.api().Do(t, s.AdminToken, "GET", "/api/v1/tool-call-stats?deck=dev&group_by=tool&since=2h&bucket=1h", nil)
		if a.Status != http.StatusOK || json.Unmarshal(a.Body, &st) != nil {
			t.Fatalf("stats: %d %s", a.Status, a.Body)
		}
		got := map[string][3]int{}
		for _, se := range st.Series {
			got[se.Service+"/"+se.Tool] = [3]int{se.Calls, se.Errors, se.IsErrors}
			sum := 0
			for _, b := range se.Buckets {
				sum += b.Calls
				if b.At.Before(st.Since) || !b.At.Before(st.Until) || b.P50MS <= 0 || b.P95MS < b.P50MS {
					t.Errorf("bucket %+v of %s/%s outside %s..%s or without latency", b, se.Service, se.Tool, st.Since, st.Until)
				}
			}
			if sum != se.Calls {
				t.Errorf("%s/%s: buckets hold %d calls, the period %d", se.Service, se.Tool, sum, se.Calls)
			}
		}
		want := map[string][3]int{"dev-peer/echo": {1, 0, 0}, "dev-peer/fail": {1, 0, 1}, "dev-peer/ecko": {1, 1, 0},
			other.Service.ID + "/echo": {1, 1, 0}, "keyed/echo": {2, 0, 0}}
		if !maps.Equal(got, want) || st.BucketSeconds != 3600 || st.GroupBy != "tool" {
			t.Errorf("stats per tool %v (bucket %d s, by %s), want %v", got, st.BucketSeconds, st.GroupBy, want)
		}
		for q, field := range map[string]string{"group_by=user": "group_by", "bucket=1s": "bucket", "since=3000h": "since", "bucket=soon": "bucket"} {
			a := s.api().Do(t, s.AdminToken, "GET", "/api/v1/tool-call-stats?"+q, nil)
			if _, _, details := a.Err(); a.Status != http.StatusBadRequest || details["field"] != field {
				t.Errorf("stats?%s: %d %s, want 400 naming %s", q, a.Status, a.Body, field)
			}
		}
		if a := s.api().Do(t, tok.Secret, "GET", "/api/v1/tool-call-stats", nil); a.Status != http.StatusForbidden {
			t.Errorf("an agent read the counts: %d", a.Status)
		}
	})
	t.Run("bad input and scope", func(t *testing.T) {
		cases := map[string]struct {
			token, query string
			status       int
			field        string
		}{
			"agent token":   {tok.Secret, "", http.StatusForbidden, ""},
			"outcome":       {s.AdminToken, "?outcome=maybe", http.StatusBadRequest, "outcome"},
			"since":         {s.AdminToken, "?since=yesterday", http.StatusBadRequest, "since"},
			"limit":         {s.AdminToken, "?limit=5000", http.StatusBadRequest, "limit"},
			"cursor":        {s.AdminToken, "?cursor=abc", http.StatusBadRequest, "cursor"},
			"until < since": {s.AdminToken, "?since=1m&until=1h", http.StatusBadRequest, "until"},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				a := s.api().Do(t, tc.token, "GET", "/api/v1/tool-calls"+tc.query, nil)
				_, _, details := a.Err()
				if a.Status != tc.status || (tc.field != "" && details["field"] != tc.field) {
					t.Errorf("status %d, details %v, want %d naming %q: %s", a.Status, details, tc.status, tc.field, a.Body)
				}
			})
		}
		a := s.api().Do(t, tok.Secret, "PUT", "/api/v1/decks/dev/audit", map[string]any{"capture_arguments": false})
		if a.Status != http.StatusForbidden {
			t.Errorf("an agent turned capture off: %d %s", a.Status, a.Body)
		}
	})
	t.Run("cli", func(t *testing.T) {
		r := runCLI(s.home, nil, "calls", "--service", "dev-peer", "--since", "1h").wantCode(t, 0)
		for _, w := range []string{"TOOL", "OUTCOME", "echo", "fail", "is_error", "error NOT_FOUND", "audit-agent", "agent-deck-tests"} {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("calls table lacks %q:\n%s", w, r.stdout)
			}
		}
		r = runCLI(s.home, nil, "calls", "--deck", "dev", "--json").wantCode(t, 0)
		var page backend.ToolCallPage
		if err := json.Unmarshal([]byte(r.stdout), &page); err != nil || len(page.Calls) != 6 {
			t.Errorf("calls --json: %v %s", err, r.stdout)
		}
		runCLI(s.home, nil, "calls", "--outcome", "maybe").wantCode(t, 1)
		r = runCLI(s.home, nil, "calls", "capture", "dev", "off").wantCode(t, 0)
		if !strings.Contains(r.stdout, "Argument capture for deck dev: off") {
			t.Errorf("calls capture: %q", r.stdout)
		}
		runCLI(s.home, nil, "calls", "capture", "dev", "maybe").wantCode(t, 1)
		runCLI(s.home, nil, "calls", "capture", "no-such-deck", "on").wantCode(t, 1)
	})
}

// attackAuditNULErasesTrail: names and arguments the database cannot store as sent (NUL) are
// kept in a storable form, and never cost the other entries of their batch, so an agent cannot
// erase its own calls from the audit trail.
func attackAuditNULErasesTrail(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	f := s.seedDeck(t, "dev", startHTTPPeer(t))
	a := s.api().Do(t, s.AdminToken, "PUT", "/api/v1/decks/dev/audit", map[string]any{"capture_arguments": true})
	if a.Status != http.StatusOK {
		t.Fatalf("capture on: %d %s", a.Status, a.Body)
	}
	c := s.connect(t, s.token(backend.ScopeAgent), nil, "")
	c.ok("bind_workspace", map[string]any{"workspaceRoot": "/h", "deckId": "dev"}, nil)
	call := func(service, tool string, args map[string]any) {
		c.call("call_service_tool", map[string]any{"serviceId": service, "toolName": tool, "arguments": args})
	}
	call(f.Service.ID, "echo", map[string]any{"message": "before"})
	call(f.Service.ID, "ec\x00ho", nil)
	call(f.Service.ID, "echo", map[string]any{"message": "nul \x00 inside"})
	call("dev-\x00peer", "echo", nil)
	call(f.Service.ID, "echo", map[string]any{"message": "after"})
	calls := auditCalls(t, s, url.Values{}, 5)
	if calls[0].Arguments == nil || !strings.Contains(string(calls[0].Arguments), "after") {
		t.Errorf("newest entry %+v", calls[0])
	}
	if !strings.Contains(string(calls[2].Arguments), `nul \ufffd inside`) && !strings.Contains(string(calls[2].Arguments), "nul \uFFFD inside") {
		t.Errorf("NUL in arguments: %s", calls[2].Arguments)
	}
	if calls[3].Tool != "ec\uFFFDho" || calls[3].ErrorCode != backend.CodeNotFound {
		t.Errorf("NUL in the tool name: %+v", calls[3])
	}
}
