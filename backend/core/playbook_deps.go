package core

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agent-deck/agent-deck/backend"
)

// DependencyCatalog is the collection a playbook's text is matched against.
type DependencyCatalog struct {
	Credentials []backend.Credential
	Services    []backend.ServiceCard
}

// Dependencies are the card ids a playbook depends on.
type Dependencies struct {
	CredentialIDs []string
	ServiceIDs    []string
}

var (
	credIDInTextRE  = regexp.MustCompile(`\bcred_[a-z0-9_]*[a-z0-9]`)
	connectionsRE   = regexp.MustCompile(`--connections(?:=|\s+)["']?([^\s"']+)`)
	connectionRefRE = regexp.MustCompile(`^[A-Za-z0-9_.\-]+$`)
)

// DetectDependencies finds the cards a playbook's text mentions: cred_… ids, the entries of
// `--connections a,b` flags, credential env names (exact case) and labels, service ids and names
// (case-insensitive), each matched on word boundaries. Ids that look like credential ids but
// name no credential are kept, so they can be reported.
func DetectDependencies(cat DependencyCatalog, texts ...string) Dependencies {
	text := strings.Join(strings.Fields(strings.Join(texts, "\n")), " ")
	lower := strings.ToLower(text)
	var d Dependencies
	for _, m := range credIDInTextRE.FindAllString(text, -1) {
		d.CredentialIDs = appendUnique(d.CredentialIDs, m)
	}
	for _, m := range connectionsRE.FindAllStringSubmatch(text, -1) {
		for _, ref := range strings.Split(m[1], ",") {
			d.addConnection(cat, strings.TrimSpace(ref))
		}
	}
	for _, c := range cat.Credentials {
		if containsWord(text, c.EnvName) || containsWord(lower, strings.ToLower(normSpace(c.Label))) ||
			containsWord(text, c.ID) {
			d.CredentialIDs = appendUnique(d.CredentialIDs, c.ID)
		}
	}
	for _, s := range cat.Services {
		if containsWord(lower, strings.ToLower(s.ID)) || containsWord(lower, strings.ToLower(normSpace(s.Name))) {
			d.ServiceIDs = appendUnique(d.ServiceIDs, s.ID)
		}
	}
	return d
}

// addConnection resolves one `--connections` entry to a credential (or service) id; unknown
// entries that look like ids are kept as credential dependencies.
func (d *Dependencies) addConnection(cat DependencyCatalog, ref string) {
	if ref == "" || !connectionRefRE.MatchString(ref) {
		return
	}
	if id, ok := cat.credentialID(ref); ok {
		d.CredentialIDs = appendUnique(d.CredentialIDs, id)
		return
	}
	if id, ok := cat.serviceID(ref); ok {
		d.ServiceIDs = appendUnique(d.ServiceIDs, id)
		return
	}
	d.CredentialIDs = appendUnique(d.CredentialIDs, ref)
}

// credentialID resolves a credential reference: id, label (case-insensitive), env name, or the
// id its text would derive to.
func (cat DependencyCatalog) credentialID(ref string) (string, bool) {
	derived := backend.DeriveCredentialID(ref)
	for _, c := range cat.Credentials {
		if c.ID == ref || strings.EqualFold(c.Label, ref) || c.EnvName == ref || c.ID == derived {
			return c.ID, true
		}
	}
	return "", false
}

// serviceID resolves a service reference: id or name (case-insensitive).
func (cat DependencyCatalog) serviceID(ref string) (string, bool) {
	for _, s := range cat.Services {
		if strings.EqualFold(s.ID, ref) || strings.EqualFold(s.Name, ref) {
			return s.ID, true
		}
	}
	return "", false
}

// resolveExplicit maps explicitly declared dependencies (ids or names) to ids; unknown ones are
// kept as given, trimmed.
func (cat DependencyCatalog) resolveExplicit(t backend.CardType, refs []string) []string {
	var out []string
	for _, ref := range refs {
		ref = strings.TrimSpace(ref)
		if ref == "" {
			continue
		}
		id, ok := "", false
		if t == backend.CardCredential {
			id, ok = cat.credentialID(ref)
		} else {
			id, ok = cat.serviceID(ref)
		}
		if !ok {
			id = ref
		}
		out = appendUnique(out, id)
	}
	return out
}

// unknown returns the dependency ids that name no card in the collection.
func (cat DependencyCatalog) unknown(d Dependencies) []string {
	out := []string{}
	for _, id := range d.CredentialIDs {
		if !cat.hasCredential(id) {
			out = append(out, id)
		}
	}
	for _, id := range d.ServiceIDs {
		if !cat.hasService(id) {
			out = append(out, id)
		}
	}
	return out
}

func (cat DependencyCatalog) hasCredential(id string) bool {
	for _, c := range cat.Credentials {
		if c.ID == id {
			return true
		}
	}
	return false
}

func (cat DependencyCatalog) hasService(id string) bool {
	for _, s := range cat.Services {
		if s.ID == id {
			return true
		}
	}
	return false
}

func normSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// containsWord reports whether needle occurs in hay on word boundaries: the characters around
// the match are not letters, digits or underscores (where the needle's own edge is one).
// Needles shorter than two characters never match.
func containsWord(hay, needle string) bool {
	if utf8.RuneCountInString(needle) < 2 {
		return false
	}
	first, _ := utf8.DecodeRuneInString(needle)
	last, _ := utf8.DecodeLastRuneInString(needle)
	for from := 0; from <= len(hay)-len(needle); {
		i := strings.Index(hay[from:], needle)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(needle)
		before, _ := utf8.DecodeLastRuneInString(hay[:start])
		after, _ := utf8.DecodeRuneInString(hay[end:])
		okBefore := start == 0 || !isWordRune(first) || !isWordRune(before)
		okAfter := end == len(hay) || !isWordRune(last) || !isWordRune(after)
		if okBefore && okAfter {
			return true
		}
		from = start + 1
	}
	return false
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func appendUnique(list []string, id string) []string {
	for _, x := range list {
		if x == id {
			return list
		}
	}
	return append(list, id)
}
