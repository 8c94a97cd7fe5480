package core

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// stepUpOAuth handles a service's refusal for want of scope (a 403 insufficient_scope): the
// sign-in becomes needs_sign_in with the union of the granted and the asked scopes remembered,
// so the next connect asks for all of them. A service that asks for scope it was already
// granted, or that asked MaxOAuthStepUps times in a row, is not sent to consent again: the
// error then says so. personID names the person whose own sign-in the refused call carried
// ("" for the service's one sign-in).
func (s signIn) stepUpOAuth(ctx context.Context, rec backend.ServiceRecord, personID string, err error) error {
	var e *backend.Error
	if !errors.As(err, &e) || e.Code != backend.CodeDownstreamAuth || rec.Type != backend.ServiceRemote {
		return err
	}
	asked, _ := e.Details[backend.DetailRequiredScope].(string)
	if asked == "" {
		return err
	}
	limit := false
	_, _, pendingField, row := backend.OAuthFields(rec.ID, personID)
	_, lerr := s.lockOAuth(ctx, rec.ID, personID, func(r backend.OAuthRecord) (backend.OAuthRecord, error) {
		if r.State != backend.OAuthStateConnected {
			return r, nil
		}
		var prev backend.OAuthPending
		if len(r.SealedPending) > 0 {
			if err := s.h.secrets.openJSON(pendingField, row, r.SealedPending, &prev); err != nil {
				return r, err
			}
		}
		want := slices.Clone(r.Scopes)
		for _, sc := range strings.Fields(asked) {
			if !slices.Contains(want, sc) {
				want = append(want, sc)
			}
		}
		if len(want) == len(r.Scopes) || prev.StepUps >= backend.MaxOAuthStepUps {
			limit = true
			return r, nil
		}
		sealed, err := s.h.secrets.sealJSON(pendingField, row, backend.OAuthPending{ServiceID: rec.ID, Scopes: want, StepUps: prev.StepUps + 1})
		if err != nil {
			return r, err
		}
		r.SealedPending, r.State, r.LastError = sealed, backend.OAuthStateNeedsSignIn, "the service asked for more scope"
		return r, nil
	})
	if lerr != nil {
		s.h.log.Warn("service step-up could not be recorded", "service_id", rec.ID, "err", backend.AsError(lerr).Message)
		return err
	}
	if limit {
		c := *e
		c.Message = "service " + backend.QuoteClip(rec.Name) + " still refuses for want of scope after signing in with the scope it asked for"
		c.Hint = "the service's authorization server does not grant the scope it asks for; an admin checks the service's OAuth settings, then: agent-deck service disconnect " + rec.Name + " and connect again"
		return &c
	}
	return err
}

// stepUpScopes returns the scopes and step-up count the last sign-in or step-up remembered on r.
func (s signIn) stepUpScopes(r backend.OAuthRecord) ([]string, int) {
	if len(r.SealedPending) == 0 {
		return nil, 0
	}
	_, _, pendingField, row := backend.OAuthFields(r.ServiceID, r.PersonID)
	var p backend.OAuthPending
	if s.h.secrets.openJSON(pendingField, row, r.SealedPending, &p) != nil {
		return nil, 0
	}
	return p.Scopes, p.StepUps
}

// wantsScope reports whether err is a service's refusal for want of scope.
func wantsScope(err error) bool {
	var e *backend.Error
	if !errors.As(err, &e) {
		return false
	}
	asked, _ := e.Details[backend.DetailRequiredScope].(string)
	return asked != ""
}
