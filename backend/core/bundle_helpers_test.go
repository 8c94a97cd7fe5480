package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/bundle"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// bundleCanary is a secret planted in the seeded collection; no export may contain it.
const bundleCanary = "canary-7f3e9a1c-secret"

// newBundleCore is a Service on a fresh database and an admin context for it.
func newBundleCore(tb testing.TB) (*core.Hub, context.Context) {
	tb.Helper()
	svc := core.NewHub(pgtest.NewStore(tb), nil, newTestSealer(tb), nil, nil, core.Config{})
	admin := backend.WithActor(context.Background(), backend.Actor{TokenID: "", Scope: backend.ScopeAdmin, Kind: backend.ActorUser})
	return svc, admin
}

// need fails the test when a call returned an error: need(svc.X(ctx, in))(t).
func need[T any](v T, err error) func(testing.TB) T {
	return func(tb testing.TB) T {
		tb.Helper()
		if err != nil {
			tb.Fatalf("unexpected error: %v", err)
		}
		return v
	}
}

// seedCollection fills a server with every kind of card: credentials of each scheme, a remote
// service with plain and secret headers and a credential, a local service with env, playbooks
// with dependencies, and two decks.
func seedCollection(tb testing.TB, svc *core.Hub, ctx context.Context) {
	tb.Helper()
	gh := need(svc.CreateCredential(ctx, core.CredentialInput{Label: "GitHub", Value: bundleCanary,
		Tags: []string{"scm", "work"}, DocsURL: "https://github.com/settings/tokens"}))(tb)
	need(svc.CreateCredential(ctx, core.CredentialInput{Label: "Linear", Value: bundleCanary + "-2",
		Scheme: backend.SchemeHeader, HeaderName: "X-Api-Key"}))(tb)
	remote := need(svc.CreateService(ctx, core.ServiceInput{Name: "github-mcp", Type: backend.ServiceRemote,
		URL: "https://api.example.test/mcp", Description: "GitHub tools",
		Headers:      map[string]string{"X-Tenant": "acme", "X-Secret-Token": bundleCanary},
		CredentialID: gh.ID, TimeoutSeconds: 30}))(tb)
	local := need(svc.CreateService(ctx, core.ServiceInput{Name: "files", Type: backend.ServiceLocal,
		LocalCommand: "npx", LocalArgs: []string{"-y", "server-files"}, LocalWorkingDir: "/tmp",
		LocalEnv: map[string]string{"FILES_TOKEN": bundleCanary}}))(tb)
	off := false
	pb := need(svc.CreatePlaybook(ctx, backend.PlaybookInput{Title: "Open a pull request",
		Body: "Use cred_github with the github-mcp service.\n", Triggers: []string{"open a PR", "pull request"},
		Exec: "agent-deck exec --connections cred_github -- gh pr create", AutoDetectDependencies: &off,
		DependsOnCredentialIDs: []string{gh.ID}, DependsOnServiceIDs: []string{remote.ID}}))(tb)
	need(svc.CreatePlaybook(ctx, backend.PlaybookInput{Title: "Release notes", Body: "Write them.\n"}))(tb)
	dev := need(svc.CreateDeck(ctx, core.DeckInput{Name: "dev"}))(tb)
	need(svc.CreateDeck(ctx, core.DeckInput{Name: "empty"}))(tb)
	for _, l := range []core.LinkCardInput{
		{CardRef: core.CardRef{Deck: dev.ID, CardType: backend.CardService, CardID: local.ID}},
		{CardRef: core.CardRef{Deck: dev.ID, CardType: backend.CardService, CardID: remote.ID}},
		{CardRef: core.CardRef{Deck: dev.ID, CardType: backend.CardCredential, CardID: gh.ID}},
		{CardRef: core.CardRef{Deck: dev.ID, CardType: backend.CardPlaybook, CardID: pb.ID}},
	} {
		need(svc.LinkCard(ctx, l))(tb)
	}
}

// stripStamp removes exported_at so two exports compare on content.
func stripStamp(tb testing.TB, raw json.RawMessage) string {
	tb.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		tb.Fatalf("export is not a JSON object: %v", err)
	}
	delete(m, "exported_at")
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	return string(out)
}

// bigBundle builds a valid bundle of n cards (a third of each type) and one deck linking them.
func bigBundle(n int) []byte {
	b := bundle.Bundle{Format: bundle.Format, Version: bundle.Version}
	deck := bundle.Deck{ID: "6f1c8d2e-0000-4000-8000-000000000001", Name: "everything"}
	for i := 0; i < n/3; i++ {
		cid := fmt.Sprintf("cred_key_%04d", i)
		b.Credentials = append(b.Credentials, bundle.Credential{ID: cid, Label: fmt.Sprintf("Key %04d", i),
			Scheme: backend.SchemeBearer, EnvName: fmt.Sprintf("KEY_%04d_API_KEY", i)})
		sid := fmt.Sprintf("6f1c8d2e-0000-4000-8000-%012d", i+100)
		b.Services = append(b.Services, bundle.Service{ID: sid, Name: fmt.Sprintf("service-%04d", i),
			Type: backend.ServiceRemote, URL: fmt.Sprintf("https://s%d.example.test/mcp", i), Transport: backend.TransportAuto,
			CredentialID: cid, TimeoutSeconds: 60})
		pid := fmt.Sprintf("pb_task_%04d", i)
		b.Playbooks = append(b.Playbooks, bundle.Playbook{ID: pid, Title: fmt.Sprintf("Task %04d", i),
			Body: "Do the thing.\n", Triggers: []string{fmt.Sprintf("task %d", i)},
			DependsOnCredentialIDs: []string{cid}, DependsOnServiceIDs: []string{sid}})
		deck.Cards.Services = append(deck.Cards.Services, sid)
		deck.Cards.Credentials = append(deck.Cards.Credentials, cid)
		deck.Cards.Playbooks = append(deck.Cards.Playbooks, pid)
	}
	b.Decks = []bundle.Deck{deck}
	raw, _ := json.Marshal(b)
	return raw
}
