package core

import (
	"context"
	"math"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// ExecInput asks for the secrets of some credentials to run a command (`agent-deck exec`).
// DryRun checks everything (credentials exist, are on Deck, have secrets) and returns the
// variable names only: no secret, no audit row.
type ExecInput struct {
	Deck          string   `json:"deck,omitempty"`
	CredentialIDs []string `json:"credential_ids"`
	Command       []string `json:"command"`
	DryRun        bool     `json:"dry_run,omitempty"`
}

// ExecGrant is the env a command runs with. It leaves the server only to the admin CLI.
type ExecGrant struct {
	AuditID int64             `json:"audit_id"`
	Env     map[string]string `json:"env"`
	// Variables names each variable and the credential it comes from, in request order.
	Variables []ExecVariable `json:"variables"`
}

// ExecVariable is one environment variable of an exec and the credential behind it.
type ExecVariable struct {
	EnvName      string `json:"env_name"`
	CredentialID string `json:"credential_id"`
}

// ExecFinish records how an exec'd command ended.
type ExecFinish struct {
	ExitCode int `json:"exit_code"`
}

// maxExecCredentials and maxExecArgs bound an exec request.
const (
	maxExecCredentials = 64
	maxExecArgs        = 1024
)

// StartExec resolves credential secrets into env vars (checking each is on Deck when given) and
// writes the audit row. Admin only.
func (s *Hub) StartExec(ctx context.Context, in ExecInput) (ExecGrant, error) {
	actor, err := backend.RequireAdmin(ctx, "resolve credential secrets for exec")
	if err != nil {
		return ExecGrant{}, err
	}
	if err := checkExecInput(in); err != nil {
		return ExecGrant{}, err
	}
	creds, deckID, err := s.execCredentials(ctx, in)
	if err != nil {
		return ExecGrant{}, err
	}
	grant := ExecGrant{Env: map[string]string{}, Variables: make([]ExecVariable, len(creds))}
	ids := make([]string, len(creds))
	for i, c := range creds {
		ids[i] = c.ID
		grant.Variables[i] = ExecVariable{EnvName: c.EnvName, CredentialID: c.ID}
		if in.DryRun {
			continue
		}
		secret, err := s.secrets.open(backend.FieldCredentialSecret, c.ID, c.SealedSecret)
		if err != nil {
			return ExecGrant{}, err
		}
		grant.Env[c.EnvName] = string(secret)
	}
	if in.DryRun {
		return grant, nil
	}
	audit := backend.ExecAudit{CredentialIDs: ids, DeckID: deckID, Command: in.Command, TokenID: actor.TokenID,
		CreatedAt: s.clock()}
	if err := s.store.CreateExecAudit(ctx, &audit); err != nil {
		return ExecGrant{}, backend.StoreErr("recording the exec audit", err)
	}
	grant.AuditID = audit.ID
	return grant, nil
}

func checkExecInput(in ExecInput) error {
	switch {
	case len(in.CredentialIDs) == 0:
		return backend.Invalid("credential_ids", "name at least one credential (id or label)")
	case len(in.CredentialIDs) > maxExecCredentials:
		return backend.Invalid("credential_ids", "at most %d credentials, got %d", maxExecCredentials, len(in.CredentialIDs))
	case len(in.Command) == 0 || strings.TrimSpace(in.Command[0]) == "":
		return backend.Invalid("command", "the command to run is required")
	case len(in.Command) > maxExecArgs:
		return backend.Invalid("command", "at most %d arguments, got %d", maxExecArgs, len(in.Command))
	}
	for _, a := range in.Command {
		if strings.ContainsRune(a, 0) || len(a) > backend.MaxValueBytes {
			return backend.Invalid("command", "arguments must be at most %d bytes without NUL", backend.MaxValueBytes)
		}
	}
	return nil
}

// execCredentials resolves the requested credentials, checks they are on the deck (when one is
// named), have a secret, and do not collide on an env name.
func (s *Hub) execCredentials(ctx context.Context, in ExecInput) ([]backend.CredentialRecord, string, error) {
	var deckID string
	var onDeck map[string]bool
	if strings.TrimSpace(in.Deck) != "" {
		d, err := s.deckByRef(ctx, s.store, in.Deck)
		if err != nil {
			return nil, "", err
		}
		deckID, onDeck = d.ID, map[string]bool{}
		links, err := s.store.ListLinks(ctx, d.ID)
		if err != nil {
			return nil, "", backend.StoreErr("reading the deck's cards", err)
		}
		for _, l := range links {
			if l.CardType == backend.CardCredential {
				onDeck[l.CardID] = true
			}
		}
	}
	out := make([]backend.CredentialRecord, 0, len(in.CredentialIDs))
	byEnv := map[string]string{}
	for _, ref := range in.CredentialIDs {
		c, err := backend.CredentialByRef(ctx, s.store, ref)
		if err != nil {
			return nil, "", err
		}
		if onDeck != nil && !onDeck[c.ID] {
			return nil, "", backend.Errorf(backend.CodeNotOnBoundDeck, "credential %s is not on deck %s", c.ID, in.Deck).
				WithHint("link it with POST /api/v1/decks/{deck}/cards, or leave out --deck").
				WithDetail("credential_id", c.ID)
		}
		if len(c.SealedSecret) == 0 {
			return nil, "", backend.Invalid("credential_ids", "credential %s has no secret; set one with "+
				"`agent-deck credential rotate %s`", c.ID, c.ID).WithDetail("credential_id", c.ID)
		}
		if prev, dup := byEnv[c.EnvName]; dup && prev != c.ID {
			return nil, "", backend.Invalid("credential_ids", "credentials %s and %s both use env name %s", prev, c.ID, c.EnvName)
		} else if dup {
			continue
		}
		byEnv[c.EnvName] = c.ID
		out = append(out, c)
	}
	return out, deckID, nil
}

// FinishExec records the exit code on the audit row. Admin only.
func (s *Hub) FinishExec(ctx context.Context, auditID int64, in ExecFinish) error {
	if _, err := backend.RequireAdmin(ctx, "finish an exec"); err != nil {
		return err
	}
	if auditID <= 0 {
		return backend.Invalid("audit_id", "must be a positive exec audit id")
	}
	if in.ExitCode < math.MinInt32 || in.ExitCode > math.MaxInt32 {
		return backend.Invalid("exit_code", "must be a 32-bit integer (%d to %d), got %d",
			math.MinInt32, math.MaxInt32, in.ExitCode)
	}
	return backend.StoreErr("recording the exec exit code", s.store.FinishExecAudit(ctx, auditID, in.ExitCode, s.clock()))
}

// ListExecAudits returns the exec audit trail. Admin only.
func (s *Hub) ListExecAudits(ctx context.Context) ([]backend.ExecAudit, error) {
	if _, err := backend.RequireAdmin(ctx, "read the exec audit trail"); err != nil {
		return nil, err
	}
	list, err := s.store.ListExecAudits(ctx)
	if err != nil {
		return nil, backend.StoreErr("listing exec audits", err)
	}
	return backend.OrEmpty(list), nil
}
