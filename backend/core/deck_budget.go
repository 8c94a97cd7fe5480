package core

import "unicode/utf8"

// DefaultDeckBudget is how many model tokens (o200k) get_bound_deck may return, whatever the
// deck's size (SPEC §4.2).
const DefaultDeckBudget = 6000

// Budget bounds a paged snapshot may ask for over REST.
const (
	MinDeckBudget = 1000
	MaxDeckBudget = 100000
)

// estimateTokens is a cheap upper estimate of the o200k tokens of s, so the core can keep a
// budget without loading a 200,000-entry tokenizer (megabytes of memory, a slow start, and a
// per-call cost that would dwarf the snapshot itself). BPE tokens seldom cross a change of
// character class, so every run of letters, digits or spaces, and every punctuation mark, is
// counted as at least one token: letter runs one per 4 letters, digit runs one per 3 digits
// (o200k splits numbers in threes), and each non-ASCII character as one token per 2 bytes.
// Measured against the real tokenizer in the tests: it never counts less, and a snapshot of
// names, ids and triggers comes out within about 1.5 times the real count.
func estimateTokens(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			_, size := utf8.DecodeRuneInString(s[i:])
			n += (size + 1) / 2
			i += size
		case isLetter(c):
			j := i
			for j < len(s) && isLetter(s[j]) {
				j++
			}
			n += (j - i + 3) / 4
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			n += (j - i + 2) / 3
			i = j
		case c == ' ':
			// A space joins the word after it; a run of spaces is a token of its own.
			j := i
			for j < len(s) && s[j] == ' ' {
				j++
			}
			if j-i > 1 || j == len(s) || !isLetter(s[j]) {
				n++
			}
			i = j
		default:
			n++
			i++
		}
	}
	return n
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// pageCosts is one card type's cards for a page, in deck order: how many, and what the full
// entry and the compact line of the i-th would cost in tokens.
type pageCosts struct {
	n    int
	full func(i int) int
	line func(i int) int
}

// pageLayout is how many cards of each type a page shows in full, then as compact lines.
type pageLayout struct {
	full, lines [3]int
}

// layoutPage fills avail tokens: every card in full when the whole page fits; otherwise full
// entries for the first cards of each type (a third of the room, shared fairly), then compact
// lines for the next ones, the room shared fairly between the types (a type that needs less
// than its share leaves the rest to the others), in deck order within each type.
func layoutPage(avail int, types [3]pageCosts) pageLayout {
	var out pageLayout
	if allFit(avail, types) {
		for t := range types {
			out.full[t] = types[t].n
		}
		return out
	}
	used := 0
	active := 0
	for t := range types {
		if types[t].n > 0 {
			active++
		}
	}
	if active == 0 {
		return out
	}
	per := avail / 3 / active
	for t := range types {
		spent := 0
		for i := 0; i < types[t].n; i++ {
			c := types[t].full(i)
			if spent+c > per {
				break
			}
			spent += c
			out.full[t]++
		}
		used += spent
	}
	rem := avail - used
	next := func(t int) int { return out.full[t] + out.lines[t] }
	for {
		var open []int
		for t := range types {
			if next(t) < types[t].n {
				open = append(open, t)
			}
		}
		if len(open) == 0 {
			return out
		}
		share := rem / len(open)
		progress := false
		for _, t := range open {
			spent := 0
			for next(t) < types[t].n && spent+types[t].line(next(t)) <= share {
				spent += types[t].line(next(t))
				out.lines[t]++
			}
			rem -= spent
			progress = progress || spent > 0
		}
		if !progress {
			break
		}
	}
	// What is left is less than a fair share: give it greedily, in type order.
	for t := range types {
		for next(t) < types[t].n && types[t].line(next(t)) <= rem {
			rem -= types[t].line(next(t))
			out.lines[t]++
		}
	}
	return out
}

func allFit(avail int, types [3]pageCosts) bool {
	sum := 0
	for t := range types {
		for i := 0; i < types[t].n; i++ {
			if sum += types[t].full(i); sum > avail {
				return false
			}
		}
	}
	return true
}
