package core_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestServiceHostPolicy runs the target policy of SPEC §10 over every way of spelling a host:
// agents may use loopback and public hosts, private ranges need admin, link-local and metadata
// hosts are refused to everyone. Nothing is resolved or contacted.
func TestServiceHostPolicy(t *testing.T) {
	f := newCoreFixture(t)
	const ok, forbidden = backend.Code(""), backend.CodeForbidden
	tests := []struct {
		url          string
		agent, admin backend.Code
	}{
		{"http://127.0.0.1:9/mcp", ok, ok},
		{"http://localhost:9/mcp", ok, ok},
		{"http://[::1]:9/mcp", ok, ok},
		{"https://api.example.com/mcp", ok, ok},
		{"http://8.8.8.8/", ok, ok},
		{"http://10.0.0.5/", forbidden, ok},
		{"http://172.20.1.1/", forbidden, ok},
		{"http://192.168.1.10:8080/", forbidden, ok},
		{"http://100.64.0.1/", forbidden, ok},
		{"http://[fd12:3456::1]/", forbidden, ok},
		{"http://012.0.0.1/", forbidden, ok}, // octal 10.0.0.1
		{"http://0.0.0.0/", forbidden, ok},
		{"http://169.254.169.254/latest/meta-data/", forbidden, forbidden},
		{"http://169.254.1.1/", forbidden, forbidden},
		{"http://2852039166/", forbidden, forbidden},
		{"http://0xA9FEA9FE/", forbidden, forbidden},
		{"http://0xa9.0xfe.0xa9.0xfe/", forbidden, forbidden},
		{"http://0251.0376.0251.0376/", forbidden, forbidden},
		{"http://169.254.43518/", forbidden, forbidden},
		{"http://[::ffff:169.254.169.254]/", forbidden, forbidden},
		{"http://[::ffff:a9fe:a9fe]/", forbidden, forbidden},
		{"http://[64:ff9b::a9fe:a9fe]/", forbidden, forbidden},
		{"http://[fe80::1]/", forbidden, forbidden},
		{"http://[fe80::1%25eth0]/", forbidden, forbidden},
		{"http://[fd00:ec2::254]/", forbidden, forbidden},
		{"http://100.100.100.200/", forbidden, forbidden},
		{"http://metadata.google.internal/computeMetadata/v1/", forbidden, forbidden},
		{"http://METADATA.GOOGLE.INTERNAL./", forbidden, forbidden},
		{"http://metadata/", forbidden, forbidden},
		{"http://user:pw@169.254.169.254/", forbidden, forbidden},
	}
	for i, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			for _, c := range []struct {
				scope string
				want  backend.Code
			}{{"agent", tt.agent}, {"admin", tt.admin}} {
				ctx := f.agent
				if c.scope == "admin" {
					ctx = f.admin
				}
				in := core.ServiceInput{Name: c.scope + "-" + string(rune('a'+i%26)) + strings.Repeat("x", i/26),
					Type: backend.ServiceRemote, URL: tt.url}
				_, err := f.svc.CreateService(ctx, in)
				if got := backend.ErrorCode(err); got != c.want {
					t.Errorf("%s: error %v, want code %q", c.scope, err, c.want)
				}
				if c.want == forbidden && backend.AsError(err).Hint == "" {
					t.Errorf("%s: refusal without a hint: %v", c.scope, err)
				}
			}
		})
	}
}

// TestServiceMetadataHostsAllowed: the operator's setting lets everyone use metadata hosts;
// private ranges still need admin.
func TestServiceMetadataHostsAllowed(t *testing.T) {
	f := newCoreFixture(t)
	svc := core.NewHub(f.store, nil, newTestSealer(t), nil, nil, core.Config{AllowMetadataHosts: true})
	coreMust[backend.ServiceCard](t)(svc.CreateService(f.agent, core.ServiceInput{
		Name: "imds", Type: backend.ServiceRemote, URL: "http://169.254.169.254/"}))
	_, err := svc.CreateService(f.agent, core.ServiceInput{Name: "lan", Type: backend.ServiceRemote, URL: "http://10.1.2.3/"})
	wantCode(t, err, backend.CodeForbidden)
}

// TestServicePatchHostPolicy: a patch that moves the URL passes the same policy; a patch that
// leaves an admin's private URL alone does not trip it.
func TestServicePatchHostPolicy(t *testing.T) {
	f := newCoreFixture(t)
	plain := f.service(t, "Plain")
	_, err := f.svc.UpdateService(f.agent, plain.ID, core.ServicePatch{URL: ptr("http://[::ffff:169.254.169.254]/")})
	wantCode(t, err, backend.CodeForbidden)
	_, err = f.svc.UpdateService(f.agent, plain.ID, core.ServicePatch{URL: ptr("http://192.168.0.2/")})
	wantCode(t, err, backend.CodeForbidden)
	_, err = f.svc.UpdateService(f.admin, plain.ID, core.ServicePatch{URL: ptr("http://metadata.google.internal/")})
	wantCode(t, err, backend.CodeForbidden)
	lan := coreMust[backend.ServiceCard](t)(f.svc.CreateService(f.admin, core.ServiceInput{
		Name: "lan", Type: backend.ServiceRemote, URL: "http://10.1.2.3/mcp"}))
	coreMust[backend.ServiceCard](t)(f.svc.UpdateService(f.agent, lan.ID, core.ServicePatch{Description: ptr("office box")}))
	if got := coreMust[backend.ServiceCard](t)(f.svc.GetService(f.admin, plain.ID)); got.URL != plain.URL {
		t.Errorf("refused patches moved the url to %q", got.URL)
	}
}

// TestServicePatchOnSecretService: on a service that carries any secret, an agent may change
// the description only; the stored record decides, whatever the patch adds or removes.
func TestServicePatchOnSecretService(t *testing.T) {
	f := newCoreFixture(t)
	cred := f.credential(t, "Key", "v")
	headers := coreMust[backend.ServiceCard](t)(f.svc.CreateService(f.admin, core.ServiceInput{
		Name: "Headers", Type: backend.ServiceRemote, URL: "https://h.test/mcp",
		Headers: map[string]string{"X-Api-Key": "sk-stored", "X-Plain": "p"}}))
	linked := coreMust[backend.ServiceCard](t)(f.svc.CreateService(f.admin, core.ServiceInput{
		Name: "Linked", Type: backend.ServiceRemote, URL: "https://l.test/mcp", CredentialID: cred.ID}))
	userinfo := coreMust[backend.ServiceCard](t)(f.svc.CreateService(f.admin, core.ServiceInput{
		Name: "Userinfo", Type: backend.ServiceRemote, URL: "https://bob:pw@u.test/mcp"}))
	env := coreMust[backend.ServiceCard](t)(f.svc.CreateService(f.admin, core.ServiceInput{
		Name: "Env", Type: backend.ServiceLocal, LocalCommand: "server", LocalEnv: map[string]string{"TOKEN": "t"}}))
	refused := []struct {
		name string
		id   string
		p    core.ServicePatch
	}{
		{"url of a service with secret headers", headers.ID, core.ServicePatch{URL: ptr("https://evil.test/")}},
		{"transport of a service with secret headers", headers.ID, core.ServicePatch{Transport: ptr(backend.TransportSSE)}},
		{"a plain header of a service with secret headers", headers.ID, core.ServicePatch{
			Headers: ptr(map[string]string{"X-Api-Key": backend.MaskedValue, "X-Plain": "other"})}},
		{"dropping the secret header", headers.ID, core.ServicePatch{Headers: ptr(map[string]string{"X-Plain": "p"})}},
		{"masked headers plus a new url", headers.ID, core.ServicePatch{URL: ptr("https://evil.test/"),
			Headers: ptr(map[string]string{"X-Api-Key": backend.MaskedValue, "X-Plain": "p"})}},
		{"unlink the credential and move in one call", linked.ID, core.ServicePatch{CredentialID: ptr(""), URL: ptr("https://evil.test/")}},
		{"unlink the credential", linked.ID, core.ServicePatch{CredentialID: ptr("")}},
		{"url of a service with userinfo", userinfo.ID, core.ServicePatch{URL: ptr("https://********@evil.test/mcp")}},
		{"env of a local service", env.ID, core.ServicePatch{LocalEnv: ptr(map[string]string{"TOKEN": "x"})}},
		{"timeout of a linked service", linked.ID, core.ServicePatch{TimeoutSeconds: ptr(5)}},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			e := wantCode(t, func() error { _, err := f.svc.UpdateService(f.agent, tt.id, tt.p); return err }(), backend.CodeForbidden)
			if !strings.Contains(e.Hint, "description") {
				t.Errorf("hint %q does not say what an agent may change", e.Hint)
			}
		})
	}
	for _, id := range []string{headers.ID, linked.ID, userinfo.ID} {
		before := coreMust[backend.ServiceCard](t)(f.svc.GetService(f.admin, id))
		after := coreMust[backend.ServiceCard](t)(f.svc.UpdateService(f.agent, id, core.ServicePatch{
			Description: ptr("now described"), URL: ptr(before.URL), Headers: maskedCopy(before.Headers)}))
		if after.URL != before.URL || after.Description != "now described" {
			t.Errorf("%s: description-only patch gave url %q description %q", before.Name, after.URL, after.Description)
		}
	}
	// An agent's own service without secrets may be repointed, secrets added with it are its own.
	own := coreMust[backend.ServiceCard](t)(f.svc.CreateService(f.agent, core.ServiceInput{
		Name: "Own", Type: backend.ServiceRemote, URL: "https://own.test/mcp"}))
	coreMust[backend.ServiceCard](t)(f.svc.UpdateService(f.agent, own.ID, core.ServicePatch{
		URL: ptr("https://own2.test/mcp"), Headers: ptr(map[string]string{"Authorization": "Bearer mine"})}))
	_, err := f.svc.UpdateService(f.agent, own.ID, core.ServicePatch{URL: ptr("https://elsewhere.test/mcp")})
	wantCode(t, err, backend.CodeForbidden)
	coreMust[backend.ServiceCard](t)(f.svc.UpdateService(f.admin, headers.ID, core.ServicePatch{URL: ptr("https://moved.test/")}))
}

func maskedCopy(h map[string]string) *map[string]string {
	if h == nil {
		return nil
	}
	out := map[string]string{}
	for k, v := range h {
		out[k] = v
	}
	return &out
}

// TestServiceURLUserinfo: user:password@ in a URL is sealed apart, masked on every read and
// export, kept when the masked form comes back, and sent as basic auth.
func TestServiceURLUserinfo(t *testing.T) {
	f := newCoreFixture(t)
	const canary = "pw-canary-5d1"
	s := coreMust[backend.ServiceCard](t)(f.svc.CreateService(f.admin, core.ServiceInput{
		Name: "U", Type: backend.ServiceRemote, URL: "https://alice:" + canary + "@u.test/mcp?x=1"}))
	if want := "https://********@u.test/mcp?x=1"; s.URL != want {
		t.Errorf("created url = %q, want %q", s.URL, want)
	}
	list := coreMust[[]backend.ServiceCard](t)(f.svc.ListServices(f.admin))
	bundle := coreMust[json.RawMessage](t)(f.svc.Export(f.admin, core.ExportInput{}))
	noCanary(t, "create", s, canary)
	noCanary(t, "list", list, canary)
	noCanary(t, "export", bundle, canary)
	f.deck(t, "d")
	f.link(t, "d", backend.CardService, s.ID)
	snap := coreMust[core.DeckSnapshot](t)(f.svc.DeckSnapshot(f.admin, "d"))
	if len(snap.Services) != 1 || snap.Services[0].URL != s.URL {
		t.Errorf("snapshot services = %+v, want the masked url %q", snap.Services, s.URL)
	}
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:"+canary))
	tg := coreMust[backend.Target](t)(f.svc.TargetForTest(f.admin, s.ID))
	if tg.URL != "https://u.test/mcp?x=1" || tg.Headers["Authorization"] != basic {
		t.Errorf("target url %q authorization %q", tg.URL, tg.Headers["Authorization"])
	}
	coreMust[backend.ServiceCard](t)(f.svc.UpdateService(f.admin, s.ID, core.ServicePatch{Description: ptr("d")}))
	coreMust[backend.ServiceCard](t)(f.svc.UpdateService(f.admin, s.ID, core.ServicePatch{URL: ptr(s.URL)}))
	if tg := coreMust[backend.Target](t)(f.svc.TargetForTest(f.admin, s.ID)); tg.Headers["Authorization"] != basic {
		t.Errorf("userinfo lost by patches that kept it: %q", tg.Headers["Authorization"])
	}
	cleared := coreMust[backend.ServiceCard](t)(f.svc.UpdateService(f.admin, s.ID, core.ServicePatch{URL: ptr("https://u.test/mcp")}))
	if tg := coreMust[backend.Target](t)(f.svc.TargetForTest(f.admin, s.ID)); cleared.URL != "https://u.test/mcp" || tg.Headers["Authorization"] != "" {
		t.Errorf("userinfo kept after a url without it: %q %q", cleared.URL, tg.Headers["Authorization"])
	}
	_, err := f.svc.UpdateService(f.admin, s.ID, core.ServicePatch{URL: ptr("https://********@u.test/mcp")})
	wantCode(t, err, backend.CodeInvalidArgument)
	raw, _ := json.Marshal(coreMust[backend.ServiceCard](t)(f.svc.GetService(f.admin, s.ID)))
	if strings.Contains(string(raw), "alice") {
		t.Errorf("read shows the user name: %s", raw)
	}
}
