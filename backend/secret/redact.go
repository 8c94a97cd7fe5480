package secret

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agent-deck/agent-deck/backend"
)

// MinSecretLen is the shortest secret masked by value. Masking shorter values would turn
// ordinary text into asterisks (a one-letter value masks every "a"; a four-digit one every year)
// while a secret that short is guessable anyway. Card reads still mask such values by field.
const MinSecretLen = 6

// Mask replaces a fixed set of secret values, and the forms a downstream or a log encoder
// may turn them into, with MaskedValue. It is immutable and safe for concurrent use.
type Mask struct {
	forms []string // longest first, so a secret containing another is masked whole
	r     *strings.Replacer
}

// NewMask builds the mask of secrets: each value, its JSON-escaped forms (with and without
// HTML escaping, as encoders differ) and those escaped again (a JSON document quoted inside a
// JSON string, as a tool result carries it), skipping values under MinSecretLen.
func NewMask(secrets []string) *Mask {
	seen := map[string]bool{}
	var forms []string
	add := func(f string) {
		if len(f) >= MinSecretLen && !seen[f] {
			seen[f] = true
			forms = append(forms, f)
		}
	}
	for _, v := range secrets {
		add(v)
		for _, html := range []bool{false, true} {
			once := jsonEscaped(v, html)
			add(once)
			add(jsonEscaped(once, html))
		}
	}
	sort.SliceStable(forms, func(i, j int) bool { return len(forms[i]) > len(forms[j]) })
	m := &Mask{forms: forms}
	if len(forms) > 0 {
		pairs := make([]string, 0, 2*len(forms))
		for _, f := range forms {
			pairs = append(pairs, f, backend.MaskedValue)
		}
		m.r = strings.NewReplacer(pairs...)
	}
	return m
}

// jsonEscaped is v as it appears inside a JSON string, without the quotes.
func jsonEscaped(v string, html bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(v); err != nil {
		return v
	}
	s := strings.TrimSuffix(b.String(), "\n")
	return s[1 : len(s)-1]
}

// Empty reports whether the mask masks nothing.
func (m *Mask) Empty() bool { return m == nil || len(m.forms) == 0 }

// String returns s with every secret form masked.
func (m *Mask) String(s string) string {
	if m.Empty() || !m.containsString(s) {
		return s
	}
	return m.r.Replace(s)
}

// Bytes returns b with every secret form masked; b itself when it holds none.
func (m *Mask) Bytes(b []byte) []byte {
	if m.Empty() || !m.Contains(b) {
		return b
	}
	return []byte(m.r.Replace(string(b)))
}

// Contains reports whether b holds any secret form.
func (m *Mask) Contains(b []byte) bool {
	if m.Empty() {
		return false
	}
	for _, f := range m.forms {
		if bytes.Contains(b, []byte(f)) {
			return true
		}
	}
	return false
}

func (m *Mask) containsString(s string) bool {
	for _, f := range m.forms {
		if strings.Contains(s, f) {
			return true
		}
	}
	return false
}

// Redactor is the server's set of every secret it holds for its services, learned as targets
// are built and forgotten when a service changes, so that log lines (see NewRedactHandler) can
// be masked by value. It never logs or returns what it holds. A nil Redactor masks nothing.
type Redactor struct {
	mu        sync.Mutex
	byService map[string][]string
	mask      atomic.Pointer[Mask]
}

// NewRedactor returns an empty redactor.
func NewRedactor() *Redactor {
	r := &Redactor{byService: map[string][]string{}}
	r.mask.Store(NewMask(nil))
	return r
}

// Learn records the secrets of one service, replacing what was known for it.
func (r *Redactor) Learn(serviceID string, secrets []string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.byService[serviceID]; ok && slices.Equal(old, secrets) {
		return
	}
	if len(secrets) == 0 {
		delete(r.byService, serviceID)
	} else {
		r.byService[serviceID] = slices.Clone(secrets)
	}
	r.rebuildLocked()
}

// Forget drops what is known of a changed or deleted service.
func (r *Redactor) Forget(serviceID string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byService[serviceID]; !ok {
		return
	}
	delete(r.byService, serviceID)
	r.rebuildLocked()
}

func (r *Redactor) rebuildLocked() {
	var all []string
	for _, s := range r.byService {
		all = append(all, s...)
	}
	r.mask.Store(NewMask(all))
}

// Mask is the current mask over every known secret.
func (r *Redactor) Mask() *Mask {
	if r == nil {
		return nil
	}
	return r.mask.Load()
}

// String masks every known secret in s.
func (r *Redactor) String(s string) string { return r.Mask().String(s) }
