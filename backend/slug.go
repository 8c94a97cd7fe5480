package backend

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/google/uuid"
	"golang.org/x/text/unicode/norm"
)

// maxSlugLength bounds the slug part of derived credential and playbook ids.
const maxSlugLength = 48

var (
	credentialIDRE = regexp.MustCompile(`^cred_[a-z0-9_]+$`)
	playbookIDRE   = regexp.MustCompile(`^pb_[a-z0-9_]+$`)
)

// latinFold spells in ASCII the lowercase Latin letters that Unicode decomposition leaves as
// they are (ł, đ, ø, ß, æ, œ, þ…): NFKD already takes accents off (é → e + ´), splits
// ligatures (ﬁ → fi, ĳ → ij, ǆ → dž) and turns full-width and other compatibility forms into
// their plain letters (Ａ → A), and what it leaves is looked up here. Letters built on one of
// these (ǿ, ǣ) decompose to it first.
var latinFold = foldTable(map[string]string{
	"ae": "æ",
	"b":  "ƀ",
	"c":  "ƈȼ",
	"d":  "ðđ",
	"e":  "ɇ",
	"f":  "ƒ",
	"g":  "ǥ",
	"h":  "ħ",
	"i":  "ı",
	"j":  "ɉ",
	"k":  "ĸƙ",
	"l":  "łƚ",
	"n":  "ŋ",
	"o":  "ø",
	"oe": "œ",
	"p":  "ƥ",
	"r":  "ɍ",
	"ss": "ß",
	"t":  "ŧƫƭ",
	"th": "þ",
	"y":  "ƴɏ",
	"z":  "ƶȥ",
})

func foldTable(byASCII map[string]string) map[rune]string {
	m := map[rune]string{}
	for ascii, letters := range byASCII {
		for _, r := range letters {
			m[r] = ascii
		}
	}
	return m
}

// Slugify lowercases s and keeps only [a-z0-9_], turning every other run of characters into one
// underscore, trimming underscores at both ends and bounding the length. Ids derived from names
// (cred_…, pb_…) use it, so the same name always gives the same id. Letters are first taken
// apart by Unicode's compatibility decomposition (NFKD, golang.org/x/text): accents are dropped,
// ligatures and full-width letters become plain ones, and latinFold spells the rest of the
// Latin letters ("Œuvre ﬁle" → oeuvre_file, "Łódź" → lodz).
func Slugify(s string) string {
	var b strings.Builder
	pending := false
	for _, r := range strings.ToLower(norm.NFKD.String(s)) {
		var piece string
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			piece = string(r)
		case latinFold[r] != "":
			piece = latinFold[r]
		case unicode.Is(unicode.Mn, r): // an accent taken off its letter: drop it
			continue
		default:
			pending = b.Len() > 0
			continue
		}
		if pending {
			b.WriteByte('_')
			pending = false
		}
		b.WriteString(piece)
	}
	out := b.String()
	if len(out) > maxSlugLength {
		out = strings.TrimRight(out[:maxSlugLength], "_")
	}
	return out
}

// slugOrHash is Slugify(s), or a short stable hash of s when s has no sluggable characters.
func slugOrHash(s string) string {
	if slug := Slugify(s); slug != "" {
		return slug
	}
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(s))))
	return "x" + hex.EncodeToString(sum[:4])
}

// DeriveCredentialID is the id a credential gets from its label: cred_<slug>.
func DeriveCredentialID(label string) string { return "cred_" + slugOrHash(label) }

// DerivePlaybookID is the id a playbook gets from its title: pb_<slug>.
func DerivePlaybookID(title string) string { return "pb_" + slugOrHash(title) }

// namedSecretWords end a label that already names its secret the way tools expect it
// ("GitHub Token" → GITHUB_TOKEN), so the env name is the label itself.
var namedSecretWords = map[string]bool{"TOKEN": true, "SECRET": true, "PASSWORD": true, "PAT": true}

// apiKeyWords are the words of "API key" a label may end in; they are not repeated before the
// _API_KEY every other label gets.
var apiKeyWords = map[string]bool{"API": true, "KEY": true, "APIKEY": true}

// DeriveEnvName is the environment variable a credential's secret is exported as, by one rule:
// the label in upper snake case; a label ending in TOKEN, SECRET, PASSWORD or PAT is used as it
// is, every other label ends in _API_KEY, a trailing API, KEY or API KEY not repeated
// ("OpenAI API Key" → OPENAI_API_KEY, "Echo Key" → ECHO_API_KEY, "Stripe" → STRIPE_API_KEY,
// "GitHub Token" → GITHUB_TOKEN, "Token" → TOKEN_API_KEY). It only names new credentials
// created without an env name; stored ones keep theirs.
func DeriveEnvName(label string) string {
	words := strings.Split(strings.ToUpper(slugOrHash(label)), "_")
	if last := words[len(words)-1]; !namedSecretWords[last] || len(words) == 1 {
		stem := words
		for len(stem) > 1 && apiKeyWords[stem[len(stem)-1]] {
			stem = stem[:len(stem)-1]
		}
		words = append(stem[:len(stem):len(stem)], "API", "KEY")
	}
	base := strings.Join(words, "_")
	if base[0] >= '0' && base[0] <= '9' {
		base = "_" + base
	}
	return base
}

// checkCredentialID validates an explicit credential id.
func CheckCredentialID(id string) error {
	if !credentialIDRE.MatchString(id) || len(id) > 64 {
		return Invalid("id", "%q must match ^cred_[a-z0-9_]+$, at most 64 characters", Clip(id, 80)).
			WithDetail("accepted", []string{"^cred_[a-z0-9_]+$"})
	}
	return nil
}

// checkPlaybookID validates an explicit playbook id.
func CheckPlaybookID(id string) error {
	if !playbookIDRE.MatchString(id) || len(id) > 64 {
		return Invalid("playbook_id", "%q must match ^pb_[a-z0-9_]+$, at most 64 characters", Clip(id, 80)).
			WithDetail("accepted", []string{"^pb_[a-z0-9_]+$"})
	}
	return nil
}

// withSuffix returns id, id_2, id_3, … for attempt 0, 1, 2, …
func WithSuffix(id string, attempt int) string {
	if attempt == 0 {
		return id
	}
	return fmt.Sprintf("%s_%d", id, attempt+1)
}

// NewUUID returns a random (version 4, RFC 9562) UUID for decks, services and tokens, in the
// canonical lowercase form the database's uuid type prints.
func NewUUID() (string, error) {
	id, err := uuid.NewRandom()
	if err != nil {
		return "", Internal("generating an id", err)
	}
	return id.String(), nil
}
