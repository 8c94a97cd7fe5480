package core

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agent-deck/agent-deck/backend"
)

// What a pinned definition is (canonical JSON and its hash) and how a changed one is described.

// canonicalTool returns a tool object minus _meta as canonical JSON (object keys sorted, no
// insignificant space, numbers as written) and its sha256 in hex.
func canonicalTool(raw json.RawMessage) ([]byte, string) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	canon := []byte(raw)
	if err := dec.Decode(&m); err == nil && m != nil {
		delete(m, "_meta")
		if b, err := json.Marshal(m); err == nil {
			canon = b
		}
	}
	sum := sha256.Sum256(canon)
	return canon, hex.EncodeToString(sum[:])
}

// maxHashMemoBytes bounds the raw definitions a hashMemo keeps.
const maxHashMemoBytes = 4 << 20

// hashMemo remembers the canonical hash of each raw definition seen, so a call hashes a tool
// once per definition rather than once per call. When it would hold more than maxHashMemoBytes
// of definitions it starts over. A nil memo hashes every time.
type hashMemo struct {
	mu    sync.Mutex
	m     map[string]string
	bytes int
}

func newHashMemo() *hashMemo { return &hashMemo{m: map[string]string{}} }

func (h *hashMemo) hash(raw []byte) string {
	if h == nil {
		_, sum := canonicalTool(raw)
		return sum
	}
	h.mu.Lock()
	sum, ok := h.m[string(raw)]
	h.mu.Unlock()
	if ok {
		return sum
	}
	_, sum = canonicalTool(raw)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.bytes+len(raw) > maxHashMemoBytes {
		clear(h.m)
		h.bytes = 0
	}
	h.m[string(raw)] = sum
	h.bytes += len(raw)
	return sum
}

// maxNamedChanges bounds how many schema properties a change summary names.
const maxNamedChanges = 8

// toolChanges names what differs between an approved and a current definition: description,
// title, input and output schema properties, annotations, any other field. Names that come from
// the downstream are quoted and clipped: they are its text, not ours.
func toolChanges(approved, current []byte) []string {
	a, c := decodeObject(approved), decodeObject(current)
	var out []string
	for _, k := range unionKeys(a, c) {
		av, aok := a[k]
		cv, cok := c[k]
		if aok == cok && reflect.DeepEqual(av, cv) {
			continue
		}
		switch k {
		case "inputSchema":
			out = append(out, schemaChanges("input schema", av, cv)...)
		case "outputSchema":
			out = append(out, schemaChanges("output schema", av, cv)...)
		case "annotations":
			out = append(out, "annotations changed: "+strings.Join(quotedKeys(changedKeys(av, cv)), ", "))
		default:
			out = append(out, fieldChange(k, aok, cok))
		}
	}
	if len(out) == 0 {
		out = append(out, "definition changed")
	}
	return out
}

func fieldChange(k string, before, after bool) string {
	name := k
	if k != "description" && k != "title" && k != "name" && k != "icons" {
		name = "field " + quoteName(k)
	}
	switch {
	case !before:
		return name + " added"
	case !after:
		return name + " removed"
	}
	return name + " changed"
}

// schemaChanges names the properties added, removed or changed, and other schema changes.
func schemaChanges(label string, before, after any) []string {
	b, _ := before.(map[string]any)
	a, _ := after.(map[string]any)
	switch {
	case b == nil && a == nil:
		return []string{label + " changed"}
	case b == nil:
		return []string{label + " added"}
	case a == nil:
		return []string{label + " removed"}
	}
	bp, _ := b["properties"].(map[string]any)
	ap, _ := a["properties"].(map[string]any)
	var props []string
	for _, k := range unionKeys(bp, ap) {
		bv, bok := bp[k]
		av, aok := ap[k]
		switch {
		case !bok:
			props = append(props, "property "+quoteName(k)+" added")
		case !aok:
			props = append(props, "property "+quoteName(k)+" removed")
		case !reflect.DeepEqual(bv, av):
			props = append(props, "property "+quoteName(k)+" changed")
		}
	}
	if len(props) > maxNamedChanges {
		props = append(props[:maxNamedChanges], fmt.Sprintf("and %d more", len(props)-maxNamedChanges))
	}
	var out []string
	if len(props) > 0 {
		out = append(out, label+": "+strings.Join(props, ", "))
	}
	if !reflect.DeepEqual(b["required"], a["required"]) {
		out = append(out, label+": required properties changed")
	}
	delete(b, "properties")
	delete(a, "properties")
	delete(b, "required")
	delete(a, "required")
	if !reflect.DeepEqual(b, a) {
		out = append(out, label+" changed: "+strings.Join(quotedKeys(changedKeys(b, a)), ", "))
	}
	return out
}

func decodeObject(b []byte) map[string]any {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	_ = dec.Decode(&m)
	return m
}

func unionKeys(a, b map[string]any) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// wholeValue stands for a value that changed as a whole (it is not an object on both sides).
const wholeValue = "(whole value)"

// changedKeys lists the keys of two objects whose values differ (the whole value when either is
// not an object).
func changedKeys(before, after any) []string {
	b, bok := before.(map[string]any)
	a, aok := after.(map[string]any)
	if !bok || !aok {
		return []string{wholeValue}
	}
	var out []string
	for _, k := range unionKeys(b, a) {
		if !reflect.DeepEqual(b[k], a[k]) {
			out = append(out, k)
		}
	}
	return backend.CapList(out)
}

func quotedKeys(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k
		if k != wholeValue {
			out[i] = quoteName(k)
		}
	}
	return out
}

// quoteName shows a downstream-chosen name: quoted, escaped and clipped.
func quoteName(s string) string {
	return fmt.Sprintf("%q", backend.Clip(s, 40))
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9._/:@%+=,-]+$`)

// shellQuote makes a name safe to paste into a shell.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
