package core_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

func TestStartExec(t *testing.T) {
	svc, ctx := newBundleCore(t)
	seedCollection(t, svc, ctx)
	tests := []struct {
		name    string
		in      core.ExecInput
		code    backend.Code
		env     map[string]string
		credIDs []string
	}{
		{"two credentials by id and label", core.ExecInput{CredentialIDs: []string{"cred_github", "Linear"}, Command: []string{"env"}},
			"", map[string]string{"GITHUB_API_KEY": bundleCanary, "LINEAR_API_KEY": bundleCanary + "-2"}, []string{"cred_github", "cred_linear"}},
		{"on the deck", core.ExecInput{Deck: "dev", CredentialIDs: []string{"cred_github"}, Command: []string{"env"}},
			"", map[string]string{"GITHUB_API_KEY": bundleCanary}, []string{"cred_github"}},
		{"not on the deck", core.ExecInput{Deck: "dev", CredentialIDs: []string{"cred_github", "cred_linear"}, Command: []string{"env"}},
			backend.CodeNotOnBoundDeck, nil, nil},
		{"unknown credential", core.ExecInput{CredentialIDs: []string{"cred_nope"}, Command: []string{"env"}},
			backend.CodeNotFound, nil, nil},
		{"unknown deck", core.ExecInput{Deck: "nope", CredentialIDs: []string{"cred_github"}, Command: []string{"env"}},
			backend.CodeNotFound, nil, nil},
		{"no command", core.ExecInput{CredentialIDs: []string{"cred_github"}}, backend.CodeInvalidArgument, nil, nil},
		{"no credentials", core.ExecInput{Command: []string{"env"}}, backend.CodeInvalidArgument, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := svc.StartExec(ctx, tc.in)
			if tc.code != "" {
				if backend.ErrorCode(err) != tc.code {
					t.Fatalf("err = %v, want %s", err, tc.code)
				}
				if tc.code == backend.CodeNotOnBoundDeck && !strings.Contains(err.Error(), "cred_linear") {
					t.Errorf("refusal does not name the credential: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.env, g.Env); diff != "" {
				t.Errorf("env (-want +got):\n%s", diff)
			}
			if g.AuditID <= 0 {
				t.Errorf("no audit row: %+v", g.AuditID)
			}
			need(0, svc.FinishExec(ctx, g.AuditID, core.ExecFinish{ExitCode: 3}))(t)
			audits := need(svc.ListExecAudits(ctx))(t)
			a := audits[len(audits)-1]
			for _, x := range audits {
				if x.ID == g.AuditID {
					a = x
				}
			}
			if diff := cmp.Diff(tc.credIDs, a.CredentialIDs); diff != "" {
				t.Errorf("audit credential ids (-want +got):\n%s", diff)
			}
			if a.ExitCode == nil || *a.ExitCode != 3 {
				t.Errorf("audit exit code = %v, want 3", a.ExitCode)
			}
			raw, _ := json.Marshal(audits)
			if strings.Contains(string(raw), bundleCanary) {
				t.Errorf("audit rows hold a secret: %s", raw)
			}
		})
	}
}

func TestStartExecDryRunAndScopes(t *testing.T) {
	svc, ctx := newBundleCore(t)
	seedCollection(t, svc, ctx)
	g := need(svc.StartExec(ctx, core.ExecInput{CredentialIDs: []string{"cred_github"}, Command: []string{"env"}, DryRun: true}))(t)
	if len(g.Env) != 0 || g.AuditID != 0 {
		t.Errorf("dry run returned secrets or an audit row: %+v", g)
	}
	if diff := cmp.Diff([]core.ExecVariable{{EnvName: "GITHUB_API_KEY", CredentialID: "cred_github"}}, g.Variables); diff != "" {
		t.Errorf("variables (-want +got):\n%s", diff)
	}
	if audits := need(svc.ListExecAudits(ctx))(t); len(audits) != 0 {
		t.Errorf("dry run wrote audit rows: %+v", audits)
	}
	agent := backend.WithActor(ctx, backend.Actor{Scope: backend.ScopeAgent, Kind: backend.ActorAgent})
	if _, err := svc.StartExec(agent, core.ExecInput{CredentialIDs: []string{"cred_github"}, Command: []string{"env"}}); backend.ErrorCode(err) != backend.CodeForbidden {
		t.Errorf("agent exec: %v, want FORBIDDEN", err)
	}
}

func TestStartExecNeedsASecret(t *testing.T) {
	svc, ctx := newBundleCore(t)
	need(svc.Import(ctx, json.RawMessage(`{"format":"agent-deck-bundle","version":1,"credentials":[{"label":"Empty"}]}`), false))(t)
	_, err := svc.StartExec(ctx, core.ExecInput{CredentialIDs: []string{"cred_empty"}, Command: []string{"env"}})
	if backend.ErrorCode(err) != backend.CodeInvalidArgument || !strings.Contains(err.Error(), "rotate") {
		t.Errorf("err = %v, want INVALID_ARGUMENT telling how to set the secret", err)
	}
}
