package secret_test

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend/secret"
)

func TestMaskForms(t *testing.T) {
	const quoted = `pa"ss\word<&>`
	m := secret.NewMask([]string{"hunter2-secret", quoted, "abc"})
	cases := []struct {
		name, in, want string
	}{
		{"raw", "key=hunter2-secret;", "key=********;"},
		{"json escaped", `{"k":"pa\"ss\\word<&>"}`, `{"k":"********"}`},
		{"json escaped with html escapes", `{"k":"pa\"ss\\word\u003c\u0026\u003e"}`, `{"k":"********"}`},
		{"escaped twice", `"{\"k\":\"pa\\\"ss\\\\word<&>\"}"`, `"{\"k\":\"********\"}"`},
		{"short values are not masked", "abc abc", "abc abc"},
		{"nothing to mask", "plain text", "plain text"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := m.String(tc.in); got != tc.want {
				t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if got := string(m.Bytes([]byte(tc.in))); got != tc.want {
				t.Errorf("Bytes(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestMaskManySecrets: with more secrets than a plain search per secret handles, the mask finds
// each of them anywhere in a text (first, last, among others sharing their first bytes) and
// leaves text that only shares a prefix alone.
func TestMaskManySecrets(t *testing.T) {
	var secrets []string
	for i := range 300 {
		secrets = append(secrets, fmt.Sprintf("sk-proj-%04d-value", i))
	}
	m := secret.NewMask(secrets)
	cases := []struct {
		name, in, want string
	}{
		{"at the start", "sk-proj-0000-value and more", "******** and more"},
		{"at the end", "the key is sk-proj-0299-value", "the key is ********"},
		{"two of them", "a sk-proj-0150-value b sk-proj-0007-value", "a ******** b ********"},
		{"a shared prefix alone", "sk-proj-9999-value sk-proj-", "sk-proj-9999-value sk-proj-"},
		{"too short to hold one", "sk-pr", "sk-pr"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := m.String(tc.in); got != tc.want {
				t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if got := string(m.Bytes([]byte(tc.in))); got != tc.want {
				t.Errorf("Bytes(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestRedactorLearnsOnlyChanges: the hub tells the redactor a service's secrets on every call;
// only a change rebuilds the mask (a rebuild per call of a service with no secrets was ~15 KB of
// garbage per proxied call), and a change is still learned.
func TestRedactorLearnsOnlyChanges(t *testing.T) {
	r := secret.NewRedactor()
	m := r.Mask()
	for _, id := range []string{"svc", "svc", "other"} {
		r.Learn(id, nil)
		if r.Mask() != m {
			t.Fatalf("Learn(%q, nil) of an unknown service rebuilt the mask", id)
		}
	}
	r.Learn("svc", []string{"hunter2-secret"})
	if got := r.String("k=hunter2-secret"); got != "k=********" {
		t.Fatalf("after learning: %q", got)
	}
	m = r.Mask()
	r.Learn("svc", []string{"hunter2-secret"})
	if r.Mask() != m {
		t.Fatal("learning the same secrets again rebuilt the mask")
	}
	r.Learn("svc", nil)
	if got := r.String("k=hunter2-secret"); got != "k=hunter2-secret" {
		t.Fatalf("a service that lost its secrets still masks them: %q", got)
	}
}

type stringer string

func (s stringer) String() string { return string(s) }

// TestRedactHandler: a secret the redactor learned is masked in the message and in every kind
// of attribute, at every level; forgetting the service stops masking it.
func TestRedactHandler(t *testing.T) {
	const canary = "sk-live-0123456789"
	r := secret.NewRedactor()
	var buf bytes.Buffer
	log := slog.New(secret.NewRedactHandler(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}), r))
	r.Learn("svc_1", []string{canary})
	log.Debug("body: "+canary, "s", canary, "err", fmt.Errorf("HTTP 500: %w", errors.New(`{"echo":"`+canary+`"}`)),
		slog.Group("g", "inner", stringer("x "+canary)), "m", map[string]string{"k": canary}, "n", 42)
	log.With("bound", canary).Warn("w")
	if strings.Contains(buf.String(), canary) {
		t.Fatalf("canary logged:\n%s", buf.String())
	}
	if !strings.Contains(buf.String(), "n=42") {
		t.Errorf("plain attributes changed:\n%s", buf.String())
	}
	r.Forget("svc_1")
	buf.Reset()
	log.Info(canary)
	if !strings.Contains(buf.String(), canary) {
		t.Errorf("a forgotten canary is still masked: %s", buf.String())
	}
}
