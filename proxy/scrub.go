package proxy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strconv"
	"sync"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/secret"
)

// scrubber masks a service's secrets, by value, wherever downstream text could carry them
// back: results, spilled files, downstream error messages and causes, stderr, log lines. A
// downstream that echoes its credential must not be a way to read it.
type scrubber struct {
	mask *secret.Mask
}

// newScrubber masks every secret the target carries (backend.Target.Secrets), in every form
// backend.NewMask derives.
func newScrubber(t backend.Target) *scrubber {
	return &scrubber{mask: secret.NewMask(t.Secrets)}
}

// String masks every secret in v.
func (s *scrubber) String(v string) string {
	if s == nil {
		return v
	}
	return s.mask.String(v)
}

// JSON masks every secret in a JSON document. Secrets are masked inside string values; if a
// replacement would break the document (a secret spanning JSON syntax), the document is decoded
// and its strings are masked one by one.
func (s *scrubber) JSON(b []byte) []byte {
	if s == nil || !s.mask.Contains(b) {
		return b
	}
	out := s.mask.Bytes(b)
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

// Error keeps err for errors.Is and errors.As but masks its text, so a cause that quotes a
// downstream's answer (an error body echoing the key) is safe to log.
func (s *scrubber) Error(err error) error {
	if err == nil || s == nil {
		return err
	}
	text := err.Error()
	if masked := s.String(text); masked != text {
		return &scrubbedError{text: masked, err: err}
	}
	return err
}

type scrubbedError struct {
	text string
	err  error
}

func (e *scrubbedError) Error() string { return e.text }
func (e *scrubbedError) Unwrap() error { return e.err }

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
	// It is computed on every call: the parts go into a reused buffer, hashed at once.
	buf := fingerprintBuffers.Get().(*[]byte)
	f := fingerprintWriter{b: (*buf)[:0]}
	f.w(string(t.Type), t.URL, string(t.Transport), t.LocalCommand, t.LocalWorkingDir,
		strconv.FormatBool(t.Hosts.AllowPrivate), strconv.FormatBool(t.Hosts.AllowMetadata))
	f.w(t.LocalArgs...)
	f.writeMap(t.Headers)
	f.writeMap(t.LocalEnv)
	f.w(t.Secrets...)
	if c := t.Credential; c != nil {
		f.w(c.ID, string(c.Scheme), c.HeaderName, c.EnvName, c.Secret)
	}
	sum := sha256.Sum256(f.b)
	clear(f.b) // it held secrets
	if cap(f.b) <= 64<<10 {
		*buf = f.b[:0]
		fingerprintBuffers.Put(buf)
	}
	var out [2 * sha256.Size]byte
	hex.Encode(out[:], sum[:])
	return string(out[:])
}

var fingerprintBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// fingerprintWriter collects the parts of a fingerprint, each followed by a zero byte.
type fingerprintWriter struct{ b []byte }

func (f *fingerprintWriter) w(parts ...string) {
	for _, p := range parts {
		f.b = append(f.b, p...)
		f.b = append(f.b, 0)
	}
}

func (f *fingerprintWriter) writeMap(m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f.w(k, m[k])
	}
	f.w("|")
}
