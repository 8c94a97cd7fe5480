package backend

import (
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
)

// byCloseness returns names ordered by how close each is to want, closest first: names that
// contain want (or are contained in it) first, then by edit distance, then alphabetically.
// Refusals list what exists in this order, so the likely typo fix comes first.
func ByCloseness(want string, names []string) []string {
	dist := make(map[string]int, len(names))
	for _, n := range names {
		dist[n] = NameDistance(want, n)
	}
	out := slices.Clone(names)
	slices.SortStableFunc(out, func(a, b string) int {
		if dist[a] != dist[b] {
			return dist[a] - dist[b]
		}
		return strings.Compare(a, b)
	})
	return out
}

// NameDistance says how far name is from want as a typo, ignoring case: 0 when one contains the
// other, else their edit distance. Every "did you mean" list (cards, fields, downstream tools)
// ranks by it.
func NameDistance(want, name string) int {
	w, l := strings.ToLower(want), strings.ToLower(name)
	if w != "" && (strings.Contains(l, w) || strings.Contains(w, l)) {
		return 0
	}
	return EditDistance(w, l)
}

// EditDistance is the Levenshtein distance between a and b, counted in runes (characters, not
// bytes): the one edit distance every surface uses.
func EditDistance(a, b string) int {
	return levenshtein.ComputeDistance(a, b)
}
