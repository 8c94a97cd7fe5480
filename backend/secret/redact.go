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
	// starts has a bit set for a hash of the first MinSecretLen bytes of every form, and
	// byStart lists the forms by those bytes, so finding whether text holds a secret costs
	// about one bit test per byte of the text however many secrets the server holds.
	starts  *[1 << 16 / 64]uint64
	byStart map[string][]string
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
	m := &Mask{forms: forms, starts: new([1 << 16 / 64]uint64), byStart: map[string][]string{}}
	for _, f := range forms {
		k := startHash(f[0], f[1], f[2], f[3], f[4], f[5])
		m.starts[k/64] |= 1 << (k % 64)
		m.byStart[f[:MinSecretLen]] = append(m.byStart[f[:MinSecretLen]], f)
	}
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

// fewForms is how many forms a plain search per form handles faster than the hashed scan.
const fewForms = 16

// startHash folds the first MinSecretLen bytes of a form, or of text at some position, into 16
// bits.
func startHash(b0, b1, b2, b3, b4, b5 byte) uint16 {
	x := (uint64(b0) | uint64(b1)<<8 | uint64(b2)<<16 | uint64(b3)<<24 | uint64(b4)<<32 | uint64(b5)<<40) * 0x9E3779B97F4A7C15
	return uint16(x >> 48)
}

func (m *Mask) mayStart(k uint16) bool { return m.starts[k/64]&(1<<(k%64)) != 0 }

// Contains reports whether b holds any secret form.
func (m *Mask) Contains(b []byte) bool {
	if m.Empty() {
		return false
	}
	if len(m.forms) <= fewForms {
		for _, f := range m.forms {
			if bytes.Contains(b, []byte(f)) {
				return true
			}
		}
		return false
	}
	for i := 0; i+MinSecretLen <= len(b); i++ {
		if !m.mayStart(startHash(b[i], b[i+1], b[i+2], b[i+3], b[i+4], b[i+5])) {
			continue
		}
		for _, f := range m.byStart[string(b[i:i+MinSecretLen])] {
			if bytes.HasPrefix(b[i:], []byte(f)) {
				return true
			}
		}
	}
	return false
}

func (m *Mask) containsString(s string) bool {
	if len(m.forms) <= fewForms {
		for _, f := range m.forms {
			if strings.Contains(s, f) {
				return true
			}
		}
		return false
	}
	for i := 0; i+MinSecretLen <= len(s); i++ {
		if !m.mayStart(startHash(s[i], s[i+1], s[i+2], s[i+3], s[i+4], s[i+5])) {
			continue
		}
		for _, f := range m.byStart[s[i:i+MinSecretLen]] {
			if strings.HasPrefix(s[i:], f) {
				return true
			}
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
	// A service known with these secrets, or unknown and holding none, changes nothing: the
	// hub learns a service's secrets on every call, so only a change may rebuild the mask.
	if old, ok := r.byService[serviceID]; ok && slices.Equal(old, secrets) || !ok && len(secrets) == 0 {
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

// Replace sets every key that starts with prefix at once: keys of byKey (each must start with
// prefix) are learned, other keys with the prefix are forgotten, in one rebuild of the mask.
func (r *Redactor) Replace(prefix string, byKey map[string][]string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.byService {
		if strings.HasPrefix(k, prefix) {
			delete(r.byService, k)
		}
	}
	for k, v := range byKey {
		if strings.HasPrefix(k, prefix) && len(v) > 0 {
			r.byService[k] = slices.Clone(v)
		}
	}
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
