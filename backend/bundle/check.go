package bundle

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

func parseService(path string, v any) (Service, error) {
	m, err := jobj(path, v, "id", "name", "type", "url", "transport", "description", "headers",
		"secret_headers", "credential_id", "local_command", "local_args", "local_working_dir", "local_env",
		"disabled_tools", "timeout_seconds", "pin_tools", "tool_overrides", "pins")
	if err != nil {
		return Service{}, err
	}
	var s Service
	if v, ok := m["pin_tools"]; ok && v != nil {
		b, isBool := v.(bool)
		if !isBool {
			return s, PathError(Key(path, "pin_tools"), "expected true or false, got %s", jtype(v))
		}
		s.PinTools = &b
	}
	if err := jtyped(path, m, "tool_overrides", &s.ToolOverrides); err != nil {
		return s, err
	}
	if err := jtyped(path, m, "pins", &s.Pins); err != nil {
		return s, err
	}
	var typ, transport string
	for _, f := range []struct {
		key      string
		dst      *string
		required bool
	}{{"id", &s.ID, false}, {"name", &s.Name, true}, {"type", &typ, true}, {"url", &s.URL, false},
		{"transport", &transport, false}, {"description", &s.Description, false},
		{"credential_id", &s.CredentialID, false}, {"local_command", &s.LocalCommand, false},
		{"local_working_dir", &s.LocalWorkingDir, false}} {
		if *f.dst, err = jstr(path, m, f.key, f.required); err != nil {
			return s, err
		}
	}
	s.Type, s.Transport = backend.ServiceType(typ), backend.Transport(transport)
	if !slices.Contains(backend.ServiceTypes, s.Type) {
		return s, PathError(Key(path, "type"), "%q is not one of mcp, local-mcp", backend.Clip(typ, 40)).
			WithDetail("accepted", []string{string(backend.ServiceRemote), string(backend.ServiceLocal)})
	}
	if s.Headers, err = jstrMap(path, m, "headers"); err != nil {
		return s, err
	}
	for _, f := range []struct {
		key string
		dst *[]string
	}{{"secret_headers", &s.SecretHeaders}, {"local_args", &s.LocalArgs}, {"local_env", &s.LocalEnv},
		{"disabled_tools", &s.DisabledTools}} {
		if *f.dst, err = jstrs(path, m, f.key); err != nil {
			return s, err
		}
	}
	s.TimeoutSeconds, err = jint(path, m, "timeout_seconds")
	return s, err
}

func parseCredential(path string, v any) (Credential, error) {
	m, err := jobj(path, v, "id", "label", "scheme", "header_name", "env_name", "tags", "docs_url")
	if err != nil {
		return Credential{}, err
	}
	var c Credential
	var scheme string
	for _, f := range []struct {
		key      string
		dst      *string
		required bool
	}{{"id", &c.ID, false}, {"label", &c.Label, true}, {"scheme", &scheme, false},
		{"header_name", &c.HeaderName, false}, {"env_name", &c.EnvName, false}, {"docs_url", &c.DocsURL, false}} {
		if *f.dst, err = jstr(path, m, f.key, f.required); err != nil {
			return c, err
		}
	}
	c.Scheme = backend.AuthScheme(scheme)
	c.Tags, err = jstrs(path, m, "tags")
	return c, err
}

func parsePlaybook(path string, v any) (Playbook, error) {
	m, err := jobj(path, v, "id", "title", "body", "triggers", "exec", "skill",
		"depends_on_credential_ids", "depends_on_service_ids")
	if err != nil {
		return Playbook{}, err
	}
	var p Playbook
	for _, f := range []struct {
		key      string
		dst      *string
		required bool
	}{{"id", &p.ID, false}, {"title", &p.Title, true}, {"body", &p.Body, false}, {"exec", &p.Exec, false},
		{"skill", &p.Skill, false}} {
		if *f.dst, err = jstr(path, m, f.key, f.required); err != nil {
			return p, err
		}
	}
	for _, f := range []struct {
		key string
		dst *[]string
	}{{"triggers", &p.Triggers}, {"depends_on_credential_ids", &p.DependsOnCredentialIDs},
		{"depends_on_service_ids", &p.DependsOnServiceIDs}} {
		if *f.dst, err = jstrs(path, m, f.key); err != nil {
			return p, err
		}
	}
	return p, nil
}

func parseDeck(path string, v any) (Deck, error) {
	m, err := jobj(path, v, "id", "name", "cards", "service_settings")
	if err != nil {
		return Deck{}, err
	}
	settings, err := jarr(path, m, "service_settings")
	if err != nil {
		return Deck{}, err
	}
	var d Deck
	for i, sv := range settings {
		st, err := parseDeckSettings(Index(Key(path, "service_settings"), i), sv)
		if err != nil {
			return d, err
		}
		d.ServiceSettings = append(d.ServiceSettings, st)
	}
	if d.ID, err = jstr(path, m, "id", false); err != nil {
		return d, err
	}
	if d.Name, err = jstr(path, m, "name", true); err != nil {
		return d, err
	}
	cards, ok := m["cards"]
	if !ok || cards == nil {
		return d, nil
	}
	cm, err := jobj(Key(path, "cards"), cards, "services", "credentials", "playbooks")
	if err != nil {
		return d, err
	}
	for _, t := range backend.CardTypes {
		if *d.Cards.IDs(t), err = jstrs(Key(path, "cards"), cm, CardSection(t)); err != nil {
			return d, err
		}
	}
	return d, nil
}

// checkBundleUnique refuses two entries of one section with the same id or name
// (case-insensitive), and a card listed twice on one deck.
func CheckUnique(b Bundle) error {
	type entry struct{ id, name string }
	sections := map[string][]entry{}
	for _, s := range b.Services {
		sections[SectionServices] = append(sections[SectionServices], entry{s.ID, s.Name})
	}
	for _, c := range b.Credentials {
		sections[SectionCredentials] = append(sections[SectionCredentials], entry{c.ID, c.Label})
	}
	for _, p := range b.Playbooks {
		sections[SectionPlaybooks] = append(sections[SectionPlaybooks], entry{p.ID, p.Title})
	}
	for _, d := range b.Decks {
		sections[SectionDecks] = append(sections[SectionDecks], entry{d.ID, d.Name})
	}
	nameKey := map[string]string{SectionServices: "name", SectionCredentials: "label", SectionPlaybooks: "title", SectionDecks: "name"}
	for _, sec := range []string{SectionServices, SectionCredentials, SectionPlaybooks, SectionDecks} {
		ids, names := map[string]int{}, map[string]int{}
		for i, e := range sections[sec] {
			path := Index("$."+sec, i)
			if j, dup := ids[e.id]; dup && e.id != "" {
				return PathError(Key(path, "id"), "%q is also the id of $.%s[%d]", backend.Clip(e.id, 60), sec, j)
			}
			n := strings.ToLower(strings.TrimSpace(e.name))
			if j, dup := names[n]; dup {
				return PathError(Key(path, nameKey[sec]), "%q is also the %s of $.%s[%d]", backend.Clip(e.name, 60), nameKey[sec], sec, j)
			}
			ids[e.id], names[n] = i, i
		}
	}
	for i, d := range b.Decks {
		for _, t := range backend.CardTypes {
			seen := map[string]bool{}
			for j, id := range *d.Cards.IDs(t) {
				if seen[id] {
					return PathError(Index(Key(Key(Index("$.decks", i), "cards"), CardSection(t)), j),
						"%q is listed twice on this deck", backend.Clip(id, 60))
				}
				seen[id] = true
			}
		}
	}
	return nil
}

func parseDeckSettings(path string, v any) (DeckServiceSettings, error) {
	m, err := jobj(path, v, "service", "allow_tools", "deny_tools", "credential_id", "sampling_allowed")
	if err != nil {
		return DeckServiceSettings{}, err
	}
	var st DeckServiceSettings
	if st.Service, err = jstr(path, m, "service", true); err != nil {
		return st, err
	}
	if st.AllowTools, err = jstrs(path, m, "allow_tools"); err != nil {
		return st, err
	}
	if st.DenyTools, err = jstrs(path, m, "deny_tools"); err != nil {
		return st, err
	}
	if st.CredentialID, err = jstr(path, m, "credential_id", false); err != nil {
		return st, err
	}
	if st.SamplingAllowed, err = jbool(path, m, "sampling_allowed"); err != nil {
		return st, err
	}
	if len(st.AllowTools) > 0 && len(st.DenyTools) > 0 {
		return st, PathError(path, "allow_tools and deny_tools cannot both be set")
	}
	return st, nil
}

// jtyped decodes m[key] strictly into dst (unknown fields refused), naming the path on error.
func jtyped(path string, m map[string]any, key string, dst any) error {
	v, ok := m[key]
	if !ok || v == nil {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return PathError(Key(path, key), "unreadable value")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return PathError(Key(path, key), "%s", jsonProblem(err))
	}
	return nil
}
