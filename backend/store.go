package backend

import (
	"context"
	"fmt"
	"time"
)

// Store is the persistence the core needs. backend/postgres implements it on pgx; every method
// that finds nothing returns a NOT_FOUND *Error, every unique violation a CONFLICT *Error naming
// the field, so the core never inspects driver errors.
//
// Lookups taking a ref accept an id or a name/label/title (case-insensitive).
type Store interface {
	// Transact runs fn in one transaction; fn's Store sees and writes only through it.
	// A nested Transact joins the outer transaction.
	Transact(ctx context.Context, fn func(Store) error) error
	Ping(ctx context.Context) error

	CreateDeck(ctx context.Context, d *Deck) error
	UpdateDeck(ctx context.Context, d *Deck) error
	DeleteDeck(ctx context.Context, id string) error
	GetDeck(ctx context.Context, ref string) (Deck, error)
	ListDecks(ctx context.Context) ([]Deck, error)
	// ListIDsWithPrefix returns up to limit ids of kind that start with prefix, ignoring case,
	// in id order (ResolveIDPrefix).
	ListIDsWithPrefix(ctx context.Context, kind IDKind, prefix string, limit int) ([]string, error)
	// LockDeck takes a row lock on the deck for the rest of the transaction, so concurrent
	// link/unlink/reorder on one deck serialize.
	LockDeck(ctx context.Context, id string) error
	// ListLinks returns the deck's links ordered by card type, then position.
	ListLinks(ctx context.Context, deckID string) ([]CardLink, error)
	// DeckChoosesCredential reports whether any deck presents its own credential to the service.
	DeckChoosesCredential(ctx context.Context, serviceID string) (bool, error)
	// SetDeckServiceSettings stores a deck's rules for one service; empty settings delete them.
	SetDeckServiceSettings(ctx context.Context, deckID, serviceID string, st DeckServiceSettings) error
	// ReplaceLinks sets the deck's cards of one type to exactly cardIDs, positions 0..n-1.
	ReplaceLinks(ctx context.Context, deckID string, t CardType, cardIDs []string) error
	// SetDeckSharing sets who besides its owner may use a deck (sharing, and for sharing
	// "people" exactly these person ids) and, when ownerID is set, its owner.
	SetDeckSharing(ctx context.Context, deckID string, sharing Sharing, people []string, ownerID string) error
	// PersonCards returns the cards linked to the decks a person may use.
	PersonCards(ctx context.Context, personID string) (PersonCards, error)
	// DecksLinking returns the decks on which the card is linked.
	DecksLinking(ctx context.Context, t CardType, cardID string) ([]Deck, error)

	CreateService(ctx context.Context, s *ServiceRecord) error
	// CreateServices creates services in order in one round trip, inside the current
	// transaction; an error is a *BatchError naming the first that failed.
	CreateServices(ctx context.Context, s []*ServiceRecord) error
	UpdateService(ctx context.Context, s *ServiceRecord) error
	UpdateServiceHealth(ctx context.Context, id string, h Health) error
	// MarkServiceTalksBack records that the service's downstream talks back (ServiceRecord.TalksBack).
	MarkServiceTalksBack(ctx context.Context, id string) error
	DeleteService(ctx context.Context, id string) error
	GetService(ctx context.Context, ref string) (ServiceRecord, error)
	ListServices(ctx context.Context) ([]ServiceRecord, error)

	// ToolPins returns the service's pinned tool definitions (tool-definition pinning).
	ToolPins(ctx context.Context, serviceID string) ([]ToolPin, error)
	// PinToolsFirstUse marks the service's first contact and pins these definitions, unless the
	// first contact is marked already: then it writes nothing and returns false.
	PinToolsFirstUse(ctx context.Context, serviceID string, pins []ToolPin) (bool, error)
	// ApproveToolPins replaces these tools' pins and marks the first contact if unmarked.
	ApproveToolPins(ctx context.Context, serviceID string, pins []ToolPin) error
	// ClearToolPins deletes the service's pins and its first-contact mark.
	ClearToolPins(ctx context.Context, serviceID string) error
	// RecordToolHold notes a held definition as a connection saw it (once per definition and
	// connection; seen again, its last_seen moves).
	RecordToolHold(ctx context.Context, h ToolHold) error
	// ToolHolds returns the service's recorded holds, by tool name then first seen.
	ToolHolds(ctx context.Context, serviceID string) ([]ToolHold, error)
	// DropUnservedToolHolds deletes the holds a connection (seenOn) recorded of definitions its
	// latest full tool list no longer serves; served maps each listed tool's name to its hash.
	DropUnservedToolHolds(ctx context.Context, serviceID, seenOn string, served map[string]string) error

	CreateCredential(ctx context.Context, c *CredentialRecord) error
	// SetPersonalSecret stores a person's own sealed secret for a credential; nil deletes it
	// (NOT_FOUND when there was none).
	SetPersonalSecret(ctx context.Context, credentialID, personID string, sealed []byte, at time.Time) error
	// PersonalSecret returns a person's own sealed secret and when it was set; NOT_FOUND when
	// they have none.
	PersonalSecret(ctx context.Context, credentialID, personID string) ([]byte, time.Time, error)
	// PersonalSecretIDs returns the ids of the credentials a person set their own secret for.
	PersonalSecretIDs(ctx context.Context, personID string) (map[string]bool, error)
	// CreateCredentials is CreateServices for credentials.
	CreateCredentials(ctx context.Context, c []*CredentialRecord) error
	UpdateCredential(ctx context.Context, c *CredentialRecord) error
	DeleteCredential(ctx context.Context, id string) error
	GetCredential(ctx context.Context, ref string) (CredentialRecord, error)
	ListCredentials(ctx context.Context) ([]CredentialRecord, error)

	CreatePlaybook(ctx context.Context, p *Playbook) error
	// CreatePlaybooks is CreateServices for playbooks.
	CreatePlaybooks(ctx context.Context, p []*Playbook) error
	UpdatePlaybook(ctx context.Context, p *Playbook) error
	DeletePlaybook(ctx context.Context, id string) error
	GetPlaybook(ctx context.Context, ref string) (Playbook, error)
	ListPlaybooks(ctx context.Context) ([]Playbook, error)
	// PlaybooksDependingOn returns playbooks whose declared dependencies include the card.
	PlaybooksDependingOn(ctx context.Context, t CardType, cardID string) ([]Playbook, error)
	// AddPlaybookVersion stores a snapshot and returns its version number (1, 2, …).
	AddPlaybookVersion(ctx context.Context, v *PlaybookVersion) error
	ListPlaybookVersions(ctx context.Context, playbookID string) ([]PlaybookVersion, error)
	GetPlaybookVersion(ctx context.Context, playbookID string, version int) (PlaybookVersion, error)

	// LockPlaybook takes a row lock on the playbook for the rest of the transaction, so
	// concurrent accepts of proposals on one playbook serialize.
	LockPlaybook(ctx context.Context, id string) error

	// PlaybookReviewRequired reports whether an agent's write to the playbook must be held for
	// review: whether any deck holding it requires review, a deck without its own setting and a
	// playbook on no deck following byDefault (the server's default).
	PlaybookReviewRequired(ctx context.Context, playbookID string, byDefault bool) (bool, error)
	// DeckPlaybookReview is the deck's own review setting; nil when it follows the server's.
	DeckPlaybookReview(ctx context.Context, deckID string) (*bool, error)
	// SetDeckPlaybookReview stores the deck's review setting; nil deletes it.
	SetDeckPlaybookReview(ctx context.Context, deckID string, required *bool) error

	CreateProposal(ctx context.Context, p *Proposal) error
	// GetProposal finds a proposal by id and locks it for the rest of the transaction.
	GetProposal(ctx context.Context, id string) (Proposal, error)
	ListProposals(ctx context.Context, f ProposalFilter) ([]Proposal, error)
	// UpdateProposal writes status, superseded_by, playbook_id, reason and decided_at.
	UpdateProposal(ctx context.Context, p *Proposal) error

	CreateSignal(ctx context.Context, s *Signal) error
	GetSignal(ctx context.Context, id string) (Signal, error)
	ListSignals(ctx context.Context) ([]Signal, error)
	// SetSignals moves the signals to status and proposal ("" clears it).
	SetSignals(ctx context.Context, ids []string, status SignalStatus, proposalID string) error
	// SignalsOfProposal returns the ids of the signals parked on or actioned by a proposal.
	SignalsOfProposal(ctx context.Context, proposalID string) ([]string, error)
	// OpenByToken counts the open proposals and open signals a token recorded.
	OpenByToken(ctx context.Context, tokenID string) (proposals, signals int, err error)

	RecordPlaybookFetch(ctx context.Context, f PlaybookFetch) error
	// PlaybookFetchStats counts the fetch events kept, per playbook.
	PlaybookFetchStats(ctx context.Context) ([]PlaybookFetchStat, error)
	// PrunePlaybookFetches deletes fetch events older than the time and returns how many.
	PrunePlaybookFetches(ctx context.Context, before time.Time) (int, error)

	CreateToken(ctx context.Context, t *TokenRecord) error
	ListTokens(ctx context.Context) ([]Token, error)
	RevokeToken(ctx context.Context, id string, at time.Time) error
	// TokenByHash finds a token by the sha256 of its secret, revoked or not.
	TokenByHash(ctx context.Context, hash []byte) (TokenRecord, error)
	TouchToken(ctx context.Context, id string, at time.Time) error
	// CreateSignInCode stores the sha256 of a one-time dashboard sign-in code for a person
	// ("" is the first admin).
	CreateSignInCode(ctx context.Context, hash []byte, personID string, createdAt, expiresAt time.Time) error
	// ConsumeSignInCode marks an unused, unexpired code used and returns its person's id;
	// NOT_FOUND otherwise.
	ConsumeSignInCode(ctx context.Context, hash []byte, at time.Time) (string, error)
	PeopleStore
	AuthServerStore

	CreateSession(ctx context.Context, s *MCPSession) error
	// OpenSession inserts a session with a badge the Store picks in the same statement (the
	// first word of pool free at the lowest level with a free word: the plain word, then word+2,
	// word+3, …), never listing live sessions; then, when the session's token holds more than
	// maxPerToken live sessions, terminates its least recently seen ones and returns their ids.
	// A badge taken concurrently is a CONFLICT on "badge": call again.
	OpenSession(ctx context.Context, s *MCPSession, pool []string, maxPerToken int) (expired []string, err error)
	// GetSession returns a session that exists and is not terminated.
	GetSession(ctx context.Context, id string) (MCPSession, error)
	UpdateSessionBinding(ctx context.Context, s *MCPSession) error
	// BindUnboundSession binds a session only while it has no deck; false when it had one.
	BindUnboundSession(ctx context.Context, s *MCPSession) (bool, error)
	TouchSession(ctx context.Context, id string, at time.Time) error
	// SetSessionLogLevel records the level a live session's client set with logging/setLevel.
	SetSessionLogLevel(ctx context.Context, id, level string) error
	TerminateSession(ctx context.Context, id string, at time.Time) error
	// ListLiveSessions returns sessions not terminated and seen since the given time.
	ListLiveSessions(ctx context.Context, seenSince time.Time) ([]MCPSession, error)
	// ExpireSessions terminates sessions not seen since the given time and returns how many.
	ExpireSessions(ctx context.Context, seenBefore time.Time) (int, error)

	// UpdateSecretKeyState runs fn on the recorded secret key state under that row's lock and,
	// in the same transaction, writes the values fn returns and its new state (nothing when fn
	// changes nothing). fn's error rolls everything back.
	UpdateSecretKeyState(ctx context.Context, fn SecretKeyStateFunc) error

	CreateExecAudit(ctx context.Context, a *ExecAudit) error
	FinishExecAudit(ctx context.Context, id int64, exitCode int, at time.Time) error
	ListExecAudits(ctx context.Context) ([]ExecAudit, error)

	// DeckProjection returns the deck's projected-tools caps; ok is false when projection is off.
	DeckProjection(ctx context.Context, deckID string) (p DeckProjection, ok bool, err error)
	// SetDeckProjection turns projection on with its caps, or off when p is nil.
	SetDeckProjection(ctx context.Context, deckID string, p *DeckProjection) error
	// SubscribeResource records a session's subscription to a playbook's resource: one per session
	// and playbook, by the URI last subscribed with.
	SubscribeResource(ctx context.Context, sub ResourceSubscription) error
	// UnsubscribeResource drops a session's subscription to uri; an unknown one is fine.
	UnsubscribeResource(ctx context.Context, sessionID, uri string) error
	// ResourceSubscribers returns the live sessions' subscriptions to a playbook's resource.
	ResourceSubscribers(ctx context.Context, playbookID string) ([]ResourceSubscription, error)
	// RateLimitSettings returns the rate limit overrides bearing on a service on a deck: the
	// pair's, the service's on every deck and the deck's for all its services.
	RateLimitSettings(ctx context.Context, deckID, serviceID string) ([]RateLimitSetting, error)
	// SetRateLimitSetting stores one override; one that sets neither limit is deleted.
	SetRateLimitSetting(ctx context.Context, st RateLimitSetting) error

	// SetSamplingAllowed grants (a row) or withdraws sampling for a service on a deck.
	SetSamplingAllowed(ctx context.Context, deckID, serviceID string, allowed bool) error
	// SamplingAllowed reports whether the deck lets the service sample.
	SamplingAllowed(ctx context.Context, deckID, serviceID string) (bool, error)
	// ListSamplingServices returns the ids of the services the deck lets sample.
	ListSamplingServices(ctx context.Context, deckID string) ([]string, error)
	// InsertToolCalls writes audit entries in one round trip, filling token and deck names
	// and keeping Arguments only for decks that capture them (audit.go).
	InsertToolCalls(ctx context.Context, calls []ToolCall) error
	// ListToolCalls returns the entries q selects, newest first.
	ListToolCalls(ctx context.Context, q ToolCallQuery) ([]ToolCall, error)
	// GetToolCall returns one audit entry.
	GetToolCall(ctx context.Context, id int64) (ToolCall, error)
	// ListToolCallBuckets counts the entries q selects per group and time bucket, and per group
	// over the whole period (a row with a zero At), ordered by group then time.
	ListToolCallBuckets(ctx context.Context, q ToolCallStatsQuery) ([]ToolCallBucket, error)
	// GetDeckArgumentCapture reports whether calls through the deck keep their arguments.
	GetDeckArgumentCapture(ctx context.Context, deckID string) (bool, error)
	// PruneToolCalls deletes entries older than before and says how many.
	PruneToolCalls(ctx context.Context, before time.Time) (int64, error)
	// SetDeckArgumentCapture turns argument capture on or off for one deck, for calls made
	// from at on.
	SetDeckArgumentCapture(ctx context.Context, deckID string, on bool, at time.Time) error

	// LinkedCards loads a deck's cards for a snapshot in one database round trip, so a snapshot
	// costs about the same for 3 cards or 100.
	LinkedCards(ctx context.Context, deckID string) (LinkedCards, error)

	// Subscribe is the change feed: it announces every committed change to the rows the core
	// caches, from this replica and from every other one sharing the database, so the core can
	// keep per-replica caches of tokens, sessions, services and decks. It starts listening in
	// the background and returns at once; it calls fn for each change until ctx ends or the
	// Store closes. It first reports Listening true once changes flow, Listening false whenever
	// they may have been missed (connection lost), and Listening true again when they flow
	// again; while the feed is not listening every request reads the Store.
	Subscribe(ctx context.Context, fn func(Change))

	OAuthStore
}

// PeopleStore keeps the people tokens, decks and cards belong to.
type PeopleStore interface {
	CreatePerson(ctx context.Context, p *Person) error
	// UpdatePerson writes a live person's role, e-mail and OIDC subject.
	UpdatePerson(ctx context.Context, p *Person) error
	// ListPeople returns the live people by name, and the removed ones after them when asked.
	ListPeople(ctx context.Context, removed bool) ([]Person, error)
	// GetPerson finds a live person by id or name (case-insensitive).
	GetPerson(ctx context.Context, ref string) (Person, error)
	// PersonBySignIn finds the live person with this OIDC subject, else this e-mail.
	PersonBySignIn(ctx context.Context, subject, email string) (Person, error)
	// FounderAdmin returns the admin the first start made (one per database).
	FounderAdmin(ctx context.Context) (Person, error)
	// RemovePerson marks the person removed, revokes their tokens and ends their live MCP
	// sessions, in one transaction.
	RemovePerson(ctx context.Context, id string, at time.Time) (PersonRemoval, error)
}

// LinkedCards is one deck's linked cards, each type in position order, with only what a deck
// snapshot shows: services without headers, local command settings, sealed values or
// timestamps; credential metadata with HasSecret set but no SealedSecret; playbooks with ID,
// Title and Triggers only (no body, exec, skill or dependencies).
type LinkedCards struct {
	Services    []ServiceRecord
	Credentials []CredentialRecord
	Playbooks   []Playbook
}

// Change is one row change announced by the database, or a change of the feed's own state.
// Table is the table name ("tokens", "mcp_sessions", "services", "credentials", "playbooks",
// "decks", "deck_cards") and ID the row's id (for deck_cards, the deck's); an empty ID for
// "services", "credentials" or "playbooks" says one statement changed several rows of the table
// (an import). Table is empty for a feed state change: Listening then says whether changes are
// being delivered.
type Change struct {
	Table     string
	ID        string
	Listening bool
}

// transact runs fn in one transaction of st and returns what fn returns, or the transaction's
// own error when it fails to commit.
func Transact[T any](ctx context.Context, st Store, fn func(tx Store) (T, error)) (T, error) {
	var res T
	err := st.Transact(ctx, func(tx Store) error {
		var err error
		res, err = fn(tx)
		return err
	})
	return res, err
}

// SecretKeyState is what the database records about the secret key.
type SecretKeyState struct {
	// Fingerprint identifies the key the secrets are sealed with; nil before the first start
	// that records it.
	Fingerprint []byte
	// Bound is set once every stored value is sealed with its row and column as associated data.
	Bound bool
}

// SealedValue is one stored sealed value: the field and row it belongs to, and its bytes.
type SealedValue struct {
	Field  SealedField
	ID     string
	Sealed []byte
}

// SecretKeyStateFunc decides the new key state from the recorded one; load reads every stored
// sealed value. It returns the state to record and the values to rewrite.
type SecretKeyStateFunc func(st SecretKeyState, load func() ([]SealedValue, error)) (SecretKeyState, []SealedValue, error)

// BatchError is the failure of one write of a batch (CreateServices and friends): Index is its
// position in the batch, Err what went wrong; nothing of the batch was kept.
type BatchError struct {
	Index int
	Err   error
}

func (e *BatchError) Error() string { return fmt.Sprintf("item %d: %v", e.Index, e.Err) }
func (e *BatchError) Unwrap() error { return e.Err }
