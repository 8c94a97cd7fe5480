package core_test

import (
	"encoding/json"
	"testing"

	"github.com/agent-deck/agent-deck/backend/core"
)

// FuzzImport feeds mutated bundles to Import: it never panics, a dry run never changes the
// database, and a refused import leaves it as it was. Run longer with
// go test ./backend -run '^$' -fuzz FuzzImport -fuzztime 60s.
func FuzzImport(f *testing.F) {
	f.Add([]byte(`{"format":"agent-deck-bundle","version":1}`))
	f.Add([]byte(`{"format":"agent-deck-bundle","version":1,"credentials":[{"label":"A","scheme":"header","header_name":"X-K"}],"services":[{"name":"s","type":"local-mcp","local_command":"x","local_env":["A"]}],"playbooks":[{"title":"p","depends_on_credential_ids":["cred_a"]}],"decks":[{"name":"d","cards":{"credentials":["cred_a"],"playbooks":["pb_p"]}}]}`))
	f.Add([]byte(`{"format":"agent-deck-bundle","version":1,"services":[{"id":"x","name":"s","type":"mcp","url":"https://a.test","secret_headers":["Authorization"],"credential_id":"cred_none"}]}`))
	f.Add(bigBundle(9))
	svc, ctx := newBundleCore(f)
	need(svc.CreateCredential(ctx, core.CredentialInput{Label: "A", Value: "v"}))(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		before := stripStamp(t, need(svc.Export(ctx, core.ExportInput{}))(t))
		_, _ = svc.Import(ctx, json.RawMessage(raw), true)
		if after := stripStamp(t, need(svc.Export(ctx, core.ExportInput{}))(t)); after != before {
			t.Fatalf("a dry run changed the database")
		}
		if _, err := svc.Import(ctx, json.RawMessage(raw), false); err != nil {
			if after := stripStamp(t, need(svc.Export(ctx, core.ExportInput{}))(t)); after != before {
				t.Fatalf("a refused import changed the database: %v", err)
			}
		}
	})
}
