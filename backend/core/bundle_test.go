package core_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/bundle"
	"github.com/agent-deck/agent-deck/backend/core"
)

func TestBundleRoundTrip(t *testing.T) {
	src, sctx := newBundleCore(t)
	seedCollection(t, src, sctx)
	first := need(src.Export(sctx, core.ExportInput{}))(t)
	if strings.Contains(string(first), bundleCanary) {
		t.Fatalf("export contains a secret value:\n%s", first)
	}
	for _, name := range []string{"X-Secret-Token", "FILES_TOKEN", "X-Tenant", "acme"} {
		if !strings.Contains(string(first), name) {
			t.Errorf("export lacks %q (names of values to fill in must be kept)", name)
		}
	}

	dst, dctx := newBundleCore(t)
	rep := need(dst.Import(dctx, first, false))(t)
	want := map[string][]string{"credentials": {"GitHub", "Linear"}, "services": {"files", "github-mcp"},
		"playbooks": {"Open a pull request", "Release notes"}, "decks": {"dev", "empty"}}
	if diff := cmp.Diff(want, rep.Created); diff != "" {
		t.Errorf("created (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"cred_github", "cred_linear"}, rep.CredentialsNeedSecret); diff != "" {
		t.Errorf("credentials needing a secret (-want +got):\n%s", diff)
	}
	second := need(dst.Export(dctx, core.ExportInput{}))(t)
	if diff := cmp.Diff(stripStamp(t, first), stripStamp(t, second)); diff != "" {
		t.Errorf("export → import → export differs (-first +second):\n%s", diff)
	}
}

func TestBundleExportOneDeck(t *testing.T) {
	svc, ctx := newBundleCore(t)
	seedCollection(t, svc, ctx)
	raw := need(svc.Export(ctx, core.ExportInput{Deck: "DEV"}))(t)
	var b bundle.Bundle
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{"services": len(b.Services), "credentials": len(b.Credentials),
		"playbooks": len(b.Playbooks), "decks": len(b.Decks)}
	want := map[string]int{"services": 2, "credentials": 1, "playbooks": 1, "decks": 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("deck export counts (-want +got):\n%s", diff)
	}
	if names := []string{b.Services[0].Name, b.Services[1].Name}; b.Decks[0].Cards.Services[0] != b.Services[0].ID {
		t.Errorf("deck card order lost: cards %v, services %v", b.Decks[0].Cards.Services, names)
	}
}

func TestImportTwiceChangesNothing(t *testing.T) {
	src, sctx := newBundleCore(t)
	seedCollection(t, src, sctx)
	bundle := need(src.Export(sctx, core.ExportInput{}))(t)
	dst, dctx := newBundleCore(t)
	need(dst.Import(dctx, bundle, false))(t)
	before := stripStamp(t, need(dst.Export(dctx, core.ExportInput{}))(t))
	rep := need(dst.Import(dctx, bundle, false))(t)
	if len(rep.Created) != 0 {
		t.Errorf("second import created %v", rep.Created)
	}
	if n := len(rep.Reused["services"]) + len(rep.Reused["credentials"]) + len(rep.Reused["playbooks"]) + len(rep.Reused["decks"]); n != 8 {
		t.Errorf("second import reused %d cards, want 8: %v", n, rep.Reused)
	}
	after := stripStamp(t, need(dst.Export(dctx, core.ExportInput{}))(t))
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("second import changed the server (-before +after):\n%s", diff)
	}
}

func TestImportDryRunChangesNothing(t *testing.T) {
	src, sctx := newBundleCore(t)
	seedCollection(t, src, sctx)
	bundle := need(src.Export(sctx, core.ExportInput{}))(t)
	dst, dctx := newBundleCore(t)
	empty := stripStamp(t, need(dst.Export(dctx, core.ExportInput{}))(t))
	dry := need(dst.Import(dctx, bundle, true))(t)
	if got := stripStamp(t, need(dst.Export(dctx, core.ExportInput{}))(t)); got != empty {
		t.Fatalf("dry run changed the server:\n%s", got)
	}
	real := need(dst.Import(dctx, bundle, false))(t)
	if !dry.DryRun || real.DryRun {
		t.Errorf("dry_run flags: dry %v, real %v", dry.DryRun, real.DryRun)
	}
	dry.DryRun = false
	if diff := cmp.Diff(real, dry); diff != "" {
		t.Errorf("dry-run report differs from the real run's (-real +dry):\n%s", diff)
	}
}

func TestImportReusesAndRemaps(t *testing.T) {
	svc, ctx := newBundleCore(t)
	existing := need(svc.CreateCredential(ctx, core.CredentialInput{Label: "github", Value: "x", ID: "cred_mine"}))(t)
	bundle := `{"format":"agent-deck-bundle","version":1,
	  "credentials":[{"id":"cred_github","label":"GitHub","scheme":"bearer","env_name":"GITHUB_API_KEY"}],
	  "playbooks":[{"id":"pb_pr","title":"PR","body":"b","depends_on_credential_ids":["cred_github"]}],
	  "decks":[{"id":"not-a-uuid","name":"work","cards":{"credentials":["cred_github"],"playbooks":["pb_pr"]}}]}`
	rep := need(svc.Import(ctx, json.RawMessage(bundle), false))(t)
	if diff := cmp.Diff(map[string][]string{"credentials": {"github"}}, rep.Reused); diff != "" {
		t.Errorf("reused (-want +got):\n%s", diff)
	}
	if rep.IDMap["cred_github"] != existing.ID {
		t.Errorf("id map %v lacks cred_github → %s", rep.IDMap, existing.ID)
	}
	pb := need(svc.GetPlaybook(ctx, "pb_pr"))(t)
	if diff := cmp.Diff([]string{existing.ID}, pb.DependsOnCredentialIDs); diff != "" {
		t.Errorf("playbook dependency not remapped (-want +got):\n%s", diff)
	}
	snap := need(svc.DeckSnapshot(ctx, "work"))(t)
	if len(snap.Credentials) != 1 || snap.Credentials[0].ID != existing.ID {
		t.Errorf("deck card not remapped: %+v", snap.Credentials)
	}
	if len(rep.CredentialsNeedSecret) != 0 {
		t.Errorf("reused credential has a secret, reported as needing one: %v", rep.CredentialsNeedSecret)
	}
}

func TestImportRefusesWithPath(t *testing.T) {
	const ok = `"format":"agent-deck-bundle","version":1`
	tests := []struct {
		name   string
		bundle string
		path   string
	}{
		{"not json", `{"format":`, "$"},
		{"not an object", `[1,2]`, "$"},
		{"trailing data", `{` + ok + `} {}`, "$"},
		{"wrong format", `{"format":"other","version":1}`, "$.format"},
		{"missing format", `{"version":1}`, "$.format"},
		{"unknown version", `{"format":"agent-deck-bundle","version":2}`, "$.version"},
		{"version not a number", `{"format":"agent-deck-bundle","version":"1"}`, "$.version"},
		{"unknown top field", `{` + ok + `,"extra":true}`, "$.extra"},
		{"bad service type", `{` + ok + `,"services":[{"name":"a","type":"mcp","url":"https://a.test"},{"name":"b","type":"ftp"}]}`, "$.services[1].type"},
		{"service without url", `{` + ok + `,"services":[{"name":"a","type":"mcp"}]}`, "$.services[0].url"},
		{"tag not a string", `{` + ok + `,"credentials":[{"label":"a","tags":["x",3]}]}`, "$.credentials[0].tags[1]"},
		{"bad scheme", `{` + ok + `,"credentials":[{"label":"a","scheme":"magic"}]}`, "$.credentials[0].scheme"},
		{"unknown deck field", `{` + ok + `,"decks":[{"name":"d","colour":"red"}]}`, "$.decks[0].colour"},
		{"duplicate label", `{` + ok + `,"credentials":[{"label":"A"},{"label":"a"}]}`, "$.credentials[1].label"},
		{"card twice on a deck", `{` + ok + `,"decks":[{"name":"d","cards":{"playbooks":["pb_x","pb_x"]}}]}`, "$.decks[0].cards.playbooks[1]"},
		{"playbook without title", `{` + ok + `,"playbooks":[{"body":"x"}]}`, "$.playbooks[0].title"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc, ctx := newBundleCore(t)
			_, err := svc.Import(ctx, json.RawMessage(tc.bundle), false)
			if backend.ErrorCode(err) != backend.CodeInvalidArgument {
				t.Fatalf("err = %v, want INVALID_ARGUMENT", err)
			}
			be := backend.AsError(err)
			if be.Details["path"] != tc.path || !strings.Contains(be.Message, tc.path) {
				t.Errorf("path %v, message %q; want %s", be.Details["path"], be.Message, tc.path)
			}
			assertEmpty(t, svc, ctx)
		})
	}
}

func assertEmpty(t *testing.T, svc *core.Hub, ctx context.Context) {
	t.Helper()
	raw := need(svc.Export(ctx, core.ExportInput{}))(t)
	var b bundle.Bundle
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatal(err)
	}
	if n := len(b.Services) + len(b.Credentials) + len(b.Playbooks) + len(b.Decks); n != 0 {
		t.Errorf("the server is not empty after a refused import: %s", raw)
	}
}

// TestImportFailingOnLastDeckChangesNothing: every card and the first deck are written inside
// the transaction before the last deck fails; nothing of it may remain.
func TestImportFailingOnLastDeckChangesNothing(t *testing.T) {
	src, sctx := newBundleCore(t)
	seedCollection(t, src, sctx)
	var b bundle.Bundle
	if err := json.Unmarshal(need(src.Export(sctx, core.ExportInput{}))(t), &b); err != nil {
		t.Fatal(err)
	}
	last := len(b.Decks) - 1
	b.Decks[last].Cards.Playbooks = append(b.Decks[last].Cards.Playbooks, "pb_nowhere")
	raw, _ := json.Marshal(b)

	dst, dctx := newBundleCore(t)
	need(dst.CreateDeck(dctx, core.DeckInput{Name: "keep me"}))(t)
	before := stripStamp(t, need(dst.Export(dctx, core.ExportInput{}))(t))
	_, err := dst.Import(dctx, raw, false)
	be := backend.AsError(err)
	if be.Code != backend.CodeInvalidArgument || be.Details["path"] != "$.decks[1].cards.playbooks[0]" {
		t.Fatalf("err = %v (path %v), want INVALID_ARGUMENT at $.decks[1].cards.playbooks[0]", err, be.Details["path"])
	}
	if after := stripStamp(t, need(dst.Export(dctx, core.ExportInput{}))(t)); after != before {
		t.Errorf("a failed import left changes:\n%s", cmp.Diff(before, after))
	}
}

func TestBundleAdminOnly(t *testing.T) {
	svc, admin := newBundleCore(t)
	agent := backend.WithActor(admin, backend.Actor{Scope: backend.ScopeAgent, Kind: backend.ActorAgent})
	if _, err := svc.Export(agent, core.ExportInput{}); backend.ErrorCode(err) != backend.CodeForbidden {
		t.Errorf("agent export: %v, want FORBIDDEN", err)
	}
	if _, err := svc.Import(agent, json.RawMessage(`{"format":"agent-deck-bundle","version":1}`), false); backend.ErrorCode(err) != backend.CodeForbidden {
		t.Errorf("agent import: %v, want FORBIDDEN", err)
	}
}
