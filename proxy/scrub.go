package proxy

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// minSecretLen is the shortest value the scrubber masks; shorter values would mangle ordinary
// text and are not credentials worth the name.
const minSecretLen = 6

// scrubber masks a service's secrets wherever downstream text could carry them back: results,
// downstream error messages, stderr, log lines. A downstream that echoes its credential must
// not be a way to read it.
type scrubber struct {
	secrets []string
}

// newScrubber collects the egress forms of t's secrets: the credential (raw, as sent in basic
// auth, JSON-escaped) and secret-looking header and env values.
func newScrubber(t backend.Target) *scrubber {
	var vals []string
	if c := t.Credential; c != nil && c.Secret != "" {
		vals = append(vals, c.Secret)
		if c.Scheme == backend.SchemeHTTPBasicUser {
			vals = append(vals, base64.StdEncoding.EncodeToString([]byte(c.Secret+":")))
		}
	}
	for k, v := range t.Headers {
		if looksSecret(k) {
			vals = append(vals, v)
		}
	}
	for k, v := range t.LocalEnv {
		if looksSecret(k) {
			vals = append(vals, v)
		}
	}
	s := &scrubber{}
	seen := map[string]bool{}
	for _, v := range vals {
		forms := []string{v}
		if b, err := json.Marshal(v); err == nil {
			forms = append(forms, string(b[1:len(b)-1]))
		}
		for _, f := range forms {
			if len(f) >= minSecretLen && !seen[f] {
				seen[f] = true
				s.secrets = append(s.secrets, f)
			}
		}
	}
	// Longest first, so a secret containing another is masked whole.
	sort.Slice(s.secrets, func(i, j int) bool { return len(s.secrets[i]) > len(s.secrets[j]) })
	return s
}

// looksSecret reports whether a header or env name suggests its value is a secret.
func looksSecret(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"auth", "token", "key", "secret", "password", "passwd", "cookie", "session", "credential"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// String masks every secret in v.
func (s *scrubber) String(v string) string {
	if s == nil {
		return v
	}
	for _, sec := range s.secrets {
		if strings.Contains(v, sec) {
			v = strings.ReplaceAll(v, sec, backend.MaskedValue)
		}
	}
	return v
}

// JSON masks every secret in a JSON document. Secrets are masked inside string values; if a
// replacement would break the document (a secret spanning JSON syntax), the document is decoded
// and its strings are masked one by one.
func (s *scrubber) JSON(b []byte) []byte {
	if s == nil || len(s.secrets) == 0 {
		return b
	}
	out := b
	for _, sec := range s.secrets {
		if bytes.Contains(out, []byte(sec)) {
			out = bytes.ReplaceAll(out, []byte(sec), []byte(backend.MaskedValue))
		}
	}
	if len(out) == len(b) && bytes.Equal(out, b) {
		return b
	}
	if json.Valid(out) {
		return out
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return out
	}
	masked, err := json.Marshal(s.walk(v))
	if err != nil {
		return out
	}
	return masked
}

func (s *scrubber) walk(v any) any {
	switch x := v.(type) {
	case string:
		return s.String(x)
	case []any:
		for i := range x {
			x[i] = s.walk(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = s.walk(x[k])
		}
	}
	return v
}

// fingerprint identifies everything about t that shapes the connection: when it changes (an
// edited URL, header or command, a rotated secret), the connection is reopened. Revision itself
// is left out on purpose: it also changes with settings that do not touch the connection
// (disabled tools, timeout), and restarting a local server for those would lose its state.
func fingerprint(t backend.Target) string {
	h := sha256.New()
	w := func(parts ...string) {
		for _, p := range parts {
			h.Write([]byte(p))
			h.Write([]byte{0})
		}
	}
	w(string(t.Type), t.URL, string(t.Transport), t.LocalCommand, t.LocalWorkingDir)
	w(t.LocalArgs...)
	writeMap := func(m map[string]string) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			w(k, m[k])
		}
		w("|")
	}
	writeMap(t.Headers)
	writeMap(t.LocalEnv)
	if c := t.Credential; c != nil {
		w(c.ID, string(c.Scheme), c.HeaderName, c.EnvName, c.Secret)
	}
	return hex.EncodeToString(h.Sum(nil))
}
