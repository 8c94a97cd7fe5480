package bundle

import (
	"encoding/json"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// The bundle's identity: a bundle with another format or version is refused.
const (
	Format  = "agent-deck-bundle"
	Version = 1
)

// Bundle is the export/import file (SPEC §8). It never holds a secret: secret header values and
// local env values are left out, but their names are kept so the person importing knows what to
// fill in. Lists are in a fixed order (by name, then id; deck cards in deck order), so exporting
// the same collection twice gives the same bytes apart from ExportedAt.
type Bundle struct {
	Format      string       `json:"format"`
	Version     int          `json:"version"`
	ExportedAt  *time.Time   `json:"exported_at,omitempty"`
	Services    []Service    `json:"services"`
	Credentials []Credential `json:"credentials"`
	Playbooks   []Playbook   `json:"playbooks"`
	Decks       []Deck       `json:"decks"`
}

// BundleService is a service card without secrets. Headers holds only headers whose names do
// not look secret; SecretHeaders and LocalEnv name the values that must be filled in again.
type Service struct {
	ID              string              `json:"id"`
	Name            string              `json:"name"`
	Type            backend.ServiceType `json:"type"`
	URL             string              `json:"url,omitempty"`
	Transport       backend.Transport   `json:"transport,omitempty"`
	Description     string              `json:"description,omitempty"`
	Headers         map[string]string   `json:"headers,omitempty"`
	SecretHeaders   []string            `json:"secret_headers,omitempty"`
	CredentialID    string              `json:"credential_id,omitempty"`
	LocalCommand    string              `json:"local_command,omitempty"`
	LocalArgs       []string            `json:"local_args,omitempty"`
	LocalWorkingDir string              `json:"local_working_dir,omitempty"`
	LocalEnv        []string            `json:"local_env,omitempty"`
	DisabledTools   []string            `json:"disabled_tools,omitempty"`
	TimeoutSeconds  int                 `json:"timeout_seconds,omitempty"`
	// PinTools is false for a service whose tools are not pinned; absent means true.
	PinTools *bool `json:"pin_tools,omitempty"`
	// ToolOverrides are what agents see instead of the downstream's own text, by tool name.
	ToolOverrides map[string]backend.ToolOverride `json:"tool_overrides,omitempty"`
	// Pins are the approved tool definitions: an import holds a tool the server defines otherwise.
	Pins []Pin `json:"pins,omitempty"`
}

// Pin is one approved tool definition of a bundle service.
type Pin struct {
	Tool       string          `json:"tool"`
	Hash       string          `json:"hash"`
	Definition json.RawMessage `json:"definition"`
	ApprovedAt time.Time       `json:"approved_at"`
	ApprovedBy string          `json:"approved_by"`
}

// BundleCredential is a credential's metadata; the secret never leaves the server.
type Credential struct {
	ID         string             `json:"id"`
	Label      string             `json:"label"`
	Scheme     backend.AuthScheme `json:"scheme"`
	HeaderName string             `json:"header_name,omitempty"`
	EnvName    string             `json:"env_name"`
	Tags       []string           `json:"tags,omitempty"`
	DocsURL    string             `json:"docs_url,omitempty"`
}

// BundlePlaybook is a playbook with its declared dependencies (bundle ids).
type Playbook struct {
	ID                     string   `json:"id"`
	Title                  string   `json:"title"`
	Body                   string   `json:"body"`
	Triggers               []string `json:"triggers,omitempty"`
	Exec                   string   `json:"exec,omitempty"`
	Skill                  string   `json:"skill,omitempty"`
	DependsOnCredentialIDs []string `json:"depends_on_credential_ids,omitempty"`
	DependsOnServiceIDs    []string `json:"depends_on_service_ids,omitempty"`
}

// BundleDeck is a deck and its cards, in deck order per type.
type Deck struct {
	ID    string    `json:"id"`
	Name  string    `json:"name"`
	Cards DeckCards `json:"cards"`
	// ServiceSettings are the deck's own rules for services it links, when it has any.
	ServiceSettings []DeckServiceSettings `json:"service_settings,omitempty"`
}

// BundleDeckCards are a deck's card ids per type, in order.
type DeckCards struct {
	Services    []string `json:"services"`
	Credentials []string `json:"credentials"`
	Playbooks   []string `json:"playbooks"`
}

// ids returns the deck's card list of one type.
func (c *DeckCards) IDs(t backend.CardType) *[]string {
	switch t {
	case backend.CardService:
		return &c.Services
	case backend.CardCredential:
		return &c.Credentials
	}
	return &c.Playbooks
}

// Report sections, the keys of ImportReport's maps.
const (
	SectionServices    = "services"
	SectionCredentials = "credentials"
	SectionPlaybooks   = "playbooks"
	SectionDecks       = "decks"
)

// cardSection is the bundle section (and report key) of a card type.
func CardSection(t backend.CardType) string {
	switch t {
	case backend.CardService:
		return SectionServices
	case backend.CardCredential:
		return SectionCredentials
	}
	return SectionPlaybooks
}

// BundleDeckServiceSettings is a deck's rules for one service it links (deck_service_settings.go),
// as a bundle carries them: the service and credential by their bundle ids.
type DeckServiceSettings struct {
	Service      string   `json:"service"`
	AllowTools   []string `json:"allow_tools,omitempty"`
	DenyTools    []string `json:"deny_tools,omitempty"`
	CredentialID string   `json:"credential_id,omitempty"`
	// SamplingAllowed says the deck lets the service ask the agent's model for completions
	// (deck_sampling.go); off when absent.
	SamplingAllowed bool `json:"sampling_allowed,omitempty"`
}
