package core

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agent-deck/agent-deck/backend"
)

// Trigger limits (SPEC §2).
const (
	MaxTriggers     = 16
	MaxTriggerChars = 80
)

// CleanTriggers applies trigger hygiene: trim, collapse whitespace, drop empties, dedupe
// case-insensitively (the first spelling wins). More than MaxTriggers or a trigger longer than
// MaxTriggerChars is INVALID_ARGUMENT, so nothing is silently dropped.
func CleanTriggers(triggers []string) ([]string, error) {
	out := []string{}
	seen := map[string]bool{}
	for i, t := range triggers {
		t = strings.Join(strings.Fields(t), " ")
		if t == "" {
			continue
		}
		if !utf8.ValidString(t) || backend.HasControl(t, false) {
			return nil, backend.Invalid("triggers", "trigger %d must be text without control characters", i+1)
		}
		if n := utf8.RuneCountInString(t); n > MaxTriggerChars {
			return nil, backend.Invalid("triggers", "trigger %d (%q) is %d characters; at most %d are allowed",
				i+1, backend.Clip(t, 40), n, MaxTriggerChars).WithDetail("max_chars", MaxTriggerChars)
		}
		key := strings.ToLower(t)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, t)
	}
	if len(out) > MaxTriggers {
		return nil, backend.Invalid("triggers", "%d distinct triggers; at most %d are allowed", len(out), MaxTriggers).
			WithDetail("max_triggers", MaxTriggers)
	}
	return out, nil
}

// triggerWords splits a trigger into lower-case words of letters and digits.
func triggerWords(t string) []string {
	return strings.FieldsFunc(strings.ToLower(t), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// TriggersConflict reports whether two triggers would fire for the same request, and why:
// they are equal, one holds all the other's words in order, or their word sets overlap heavily
// (Jaccard ≥ 0.6, both with at least two words).
func TriggersConflict(a, b string) (bool, string) {
	wa, wb := triggerWords(a), triggerWords(b)
	if len(wa) == 0 || len(wb) == 0 {
		return false, ""
	}
	if strings.Join(wa, " ") == strings.Join(wb, " ") {
		return true, "the same trigger"
	}
	if isSubsequence(wa, wb) || isSubsequence(wb, wa) {
		return true, "one contains the other's words in order"
	}
	if len(wa) >= 2 && len(wb) >= 2 {
		if j := jaccard(wa, wb); j >= 0.6 {
			return true, fmt.Sprintf("they share most of their words (%.0f%%)", j*100)
		}
	}
	return false, ""
}

// isSubsequence reports whether every word of short appears in long, in order.
func isSubsequence(short, long []string) bool {
	if len(short) > len(long) {
		return false
	}
	i := 0
	for _, w := range long {
		if i < len(short) && short[i] == w {
			i++
		}
	}
	return i == len(short)
}

func jaccard(a, b []string) float64 {
	sa, sb := map[string]bool{}, map[string]bool{}
	for _, w := range a {
		sa[w] = true
	}
	for _, w := range b {
		sb[w] = true
	}
	inter := 0
	for w := range sa {
		if sb[w] {
			inter++
		}
	}
	union := len(sa) + len(sb) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// triggerConflicts compares one playbook's triggers with others' and returns one warning per
// conflicting playbook.
func triggerConflicts(p backend.Playbook, others []backend.Playbook, deckName string) []Warning {
	var out []Warning
	for _, o := range others {
		if o.ID == p.ID {
			continue
		}
		if w, ok := conflictWith(p, o, deckName); ok {
			out = append(out, w)
		}
	}
	return out
}

func conflictWith(p, o backend.Playbook, deckName string) (Warning, bool) {
	for _, a := range p.Triggers {
		for _, b := range o.Triggers {
			ok, why := TriggersConflict(a, b)
			if !ok {
				continue
			}
			msg := fmt.Sprintf("trigger %q overlaps %q of playbook %q (%s) on deck %q: %s",
				a, b, o.Title, o.ID, deckName, why)
			return Warning{Code: "TRIGGER_CONFLICT", Message: msg, Playbooks: []string{o.ID}}, true
		}
	}
	return Warning{}, false
}
