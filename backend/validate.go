package backend

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxNameLength bounds deck and service names, credential labels, playbook titles and token
// names, in characters.
const MaxNameLength = 100

// Limits on free text, generous enough for real runbooks yet bounded.
const (
	MaxBodyBytes        = 256 << 10
	MaxExecLength       = 4000
	MaxSkillLength      = 200
	MaxDescriptionChars = 2000
	maxTags             = 32
	maxTagChars         = 40
	MaxArgs             = 128
	MaxEntries          = 64
	MaxValueBytes       = 8 << 10
	maxTimeoutSeconds   = 600
)

var envNameRE = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)

// invalid builds an INVALID_ARGUMENT error that names the field and, in its hint, what the
// field accepts (a caller may replace the hint with a more specific one).
func Invalid(field, format string, args ...any) *Error {
	rule := fmt.Sprintf(format, args...)
	e := Errorf(CodeInvalidArgument, "%s: %s", field, rule).
		WithDetail("field", field).WithHint(acceptedHint(field, rule, peopleLister))
	e.accepted = &acceptedField{field, rule}
	return e
}

// invalidEnum is the error for a value outside a closed set; it lists the accepted values.
func InvalidEnum[T ~string](field string, got T, accepted []T) *Error {
	names := make([]string, len(accepted))
	for i, a := range accepted {
		names[i] = string(a)
	}
	return Invalid(field, "%q is not one of %s", string(got), strings.Join(names, ", ")).
		WithDetail("accepted", names)
}

// cleanName trims a display name and checks it is usable: non-empty, at most MaxNameLength
// characters, no control characters.
func CleanName(field, name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", Invalid(field, "must not be empty")
	case !utf8.ValidString(name):
		return "", Invalid(field, "must be valid UTF-8")
	case utf8.RuneCountInString(name) > MaxNameLength:
		return "", Invalid(field, "must be at most %d characters, got %d",
			MaxNameLength, utf8.RuneCountInString(name))
	case HasControl(name, false):
		return "", Invalid(field, "must not contain control characters (newlines, tabs, …)")
	}
	return name, nil
}

// cleanText checks free text (descriptions, bodies): valid UTF-8, within a size, and without
// control characters other than newlines and tabs when multiline.
func CleanText(field, text string, maxChars int, multiline bool) (string, error) {
	switch {
	case !utf8.ValidString(text):
		return "", Invalid(field, "must be valid UTF-8")
	case utf8.RuneCountInString(text) > maxChars:
		return "", Invalid(field, "must be at most %d characters, got %d",
			maxChars, utf8.RuneCountInString(text))
	case HasControl(text, multiline):
		return "", Invalid(field, "must not contain control characters")
	}
	return text, nil
}

func HasControl(s string, allowNewlines bool) bool {
	for _, r := range s {
		if allowNewlines && (r == '\n' || r == '\t' || r == '\r') {
			continue
		}
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return true
		}
	}
	return false
}

// checkHTTPURL accepts an absolute http or https URL with a host.
func CheckHTTPURL(field, raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", Invalid(field, "is required: an http:// or https:// URL")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", Invalid(field, "%q is not an absolute http:// or https:// URL", Clip(redactUserinfo(raw), 200)).
			WithDetail("accepted", []string{"http://host[:port]/path", "https://host[:port]/path"})
	}
	if HasControl(raw, false) || strings.ContainsAny(raw, " ") {
		return "", Invalid(field, "must not contain spaces or control characters")
	}
	return raw, nil
}

// redactUserinfo masks what could be user:password@ in a URL that may not even parse, so an
// error message never echoes it.
func redactUserinfo(raw string) string {
	start := strings.Index(raw, "://") + len("://")
	if start < len("://") {
		start = 0
	}
	end := len(raw)
	if i := strings.IndexAny(raw[start:], "/?#"); i >= 0 {
		end = start + i
	}
	if at := strings.LastIndex(raw[start:end], "@"); at >= 0 {
		return raw[:start] + MaskedValue + raw[start+at:]
	}
	return raw
}

// validHeaderName reports whether name is an HTTP field name (an RFC 9110 token).
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			continue
		}
		if !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(c)) {
			return false
		}
	}
	return true
}

// checkHeaderName validates one header name for field.
func CheckHeaderName(field, name string) error {
	if !validHeaderName(name) {
		return Invalid(field, "%q is not a valid HTTP header name (letters, digits and !#$%%&'*+-.^_`|~)",
			Clip(name, 80))
	}
	return nil
}

// checkEnvName validates an environment variable name.
func CheckEnvName(field, name string) error {
	if !envNameRE.MatchString(name) || len(name) > 128 {
		return Invalid(field, "%q must match ^[A-Z_][A-Z0-9_]*$ (upper-case letters, digits, "+
			"underscores; not starting with a digit), at most 128 characters", Clip(name, 80)).
			WithDetail("accepted", []string{"^[A-Z_][A-Z0-9_]*$"})
	}
	return nil
}

// checkTimeout validates a timeout in seconds; 0 is stored as is and means the server default
// (Config.DefaultServiceTimeout), so changing the default reaches every such service.
func CheckTimeout(field string, seconds int) (int, error) {
	if seconds == 0 {
		return 0, nil
	}
	if seconds < 1 || seconds > maxTimeoutSeconds {
		return 0, Invalid(field, "must be between 1 and %d seconds, got %d", maxTimeoutSeconds, seconds)
	}
	return seconds, nil
}

// cleanTags trims, drops empties and dedupes tags case-insensitively.
func CleanTags(tags []string) ([]string, error) {
	out := []string{}
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.Join(strings.Fields(t), " ")
		if t == "" || seen[strings.ToLower(t)] {
			continue
		}
		if utf8.RuneCountInString(t) > maxTagChars || HasControl(t, false) {
			return nil, Invalid("tags", "tag %q must be at most %d characters without control characters",
				Clip(t, 60), maxTagChars)
		}
		seen[strings.ToLower(t)] = true
		out = append(out, t)
	}
	if len(out) > maxTags {
		return nil, Invalid("tags", "at most %d tags, got %d", maxTags, len(out))
	}
	return out, nil
}

// clip shortens s for inclusion in a message.
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// orEmpty turns a nil slice into an empty one, so JSON shows [] rather than null.
func OrEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func QuoteClip(s string) string { return `"` + Clip(s, 100) + `"` }

func QuoteNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(Clip(n, 60))
	}
	return strings.Join(q, ", ")
}

func NotIn(names, known []string) []string {
	var out []string
	for _, n := range names {
		if !slices.Contains(known, n) {
			out = append(out, n)
		}
	}
	return out
}

// isUUIDText reports whether id has the 8-4-4-4-12 hex shape of the ids sessions get, so
// garbage never reaches the database.
func IsUUIDText(id string) bool {
	if len(id) != 36 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
