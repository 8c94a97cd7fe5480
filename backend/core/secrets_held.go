package core

import (
	"context"
	"encoding/base64"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/secret"
)

// Every secret the server holds is masked by value wherever agents' text is stored (audit
// arguments, proposals, signals, playbooks) and in every log line, on every replica. The
// Redactor learns them all, not only those of the services this replica has called: every
// credential's value, every service's sealed headers, local env values, URL userinfo and
// sign-in tokens. They are loaded at start (LearnHeldSecrets), again whenever the change feed
// starts listening (changes may have been missed), and per row whenever a credential or a
// service changes, on this replica at once and on the others through the change feed.

// Keys of held secrets in the Redactor, apart from the per-target keys the proxy path uses.
const (
	heldPrefix           = "held:"
	heldCredentialPrefix = heldPrefix + "credential:"
	heldServicePrefix    = heldPrefix + "service:"
)

// heldReloadTimeout bounds one reload; a reload that fails keeps what was known.
const heldReloadTimeout = 10 * time.Second

// LearnHeldSecrets teaches the Redactor every secret the database holds. The composition root
// calls it once the secret key is checked and before serving; the change feed keeps it current.
func (s *Hub) LearnHeldSecrets(ctx context.Context) error {
	if s.cfg.Redactor == nil {
		return nil
	}
	creds, err := s.store.ListCredentials(ctx)
	if err != nil {
		return backend.StoreErr("listing credentials", err)
	}
	svcs, err := s.store.ListServices(ctx)
	if err != nil {
		return backend.StoreErr("listing services", err)
	}
	byKey := make(map[string][]string, len(creds)+len(svcs))
	for _, c := range creds {
		byKey[heldCredentialPrefix+c.ID] = s.credentialSecrets(c)
	}
	for _, rec := range svcs {
		byKey[heldServicePrefix+rec.ID] = s.serviceSecrets(ctx, rec)
	}
	s.cfg.Redactor.Replace(heldPrefix, byKey)
	return nil
}

// relearnHeld follows one change: a credential or service row changed (or went), or the feed
// (re)started, when table is "". It never fails: a row it cannot read keeps what was known,
// and the next start or feed restart loads everything again.
func (s *Hub) relearnHeld(table, id string) {
	if s.cfg.Redactor == nil || (table != "" && table != "credentials" && table != "services") {
		return
	}
	ctx, cancel := context.WithTimeout(backend.WithActor(context.Background(), backend.SystemActor), heldReloadTimeout)
	defer cancel()
	var err error
	switch table {
	case "":
		err = s.LearnHeldSecrets(ctx)
	case "credentials":
		c, gerr := s.store.GetCredential(ctx, id)
		switch {
		case backend.IsNotFound(gerr):
			s.cfg.Redactor.Forget(heldCredentialPrefix + id)
		case gerr == nil:
			s.cfg.Redactor.Learn(heldCredentialPrefix+c.ID, s.credentialSecrets(c))
		}
		err = gerr
	case "services":
		rec, gerr := s.store.GetService(ctx, id)
		switch {
		case backend.IsNotFound(gerr):
			s.cfg.Redactor.Forget(heldServicePrefix + id)
		case gerr == nil:
			s.cfg.Redactor.Learn(heldServicePrefix+rec.ID, s.serviceSecrets(ctx, rec))
		}
		err = gerr
	}
	if err != nil && !backend.IsNotFound(err) {
		s.log.Warn("reloading held secrets failed", "table", table, "error", backend.ErrorCode(err))
	}
}

// credentialSecrets is a credential's value, also as basic auth sends it as a user name.
func (s *Hub) credentialSecrets(c backend.CredentialRecord) []string {
	if len(c.SealedSecret) == 0 {
		return nil
	}
	v, err := s.secrets.open(backend.FieldCredentialSecret, c.ID, c.SealedSecret)
	if err != nil {
		s.log.Warn("credential secret unreadable", "credential_id", c.ID, "error", backend.ErrorCode(err))
		return nil
	}
	return []string{string(v), base64.StdEncoding.EncodeToString(append(v, ':'))}
}

// serviceSecrets is every value a service holds sealed: header values, local env values, URL
// userinfo (as written, decoded and as basic auth), and its sign-in's tokens and client secret.
// The linked credential is a credential's own key.
func (s *Hub) serviceSecrets(ctx context.Context, rec backend.ServiceRecord) []string {
	var out []string
	headers, err := s.secrets.openMap(backend.FieldServiceHeaders, rec.ID, rec.SealedHeaders)
	for _, v := range headers {
		out = append(out, v)
	}
	env, eerr := s.secrets.openMap(backend.FieldServiceEnv, rec.ID, rec.SealedEnv)
	for _, v := range env {
		out = append(out, v)
	}
	if len(rec.SealedUserinfo) > 0 {
		if raw, uerr := s.secrets.open(backend.FieldServiceURLUserinfo, rec.ID, rec.SealedUserinfo); uerr == nil {
			out = append(out, urlUserinfo("http://"+string(raw)+"@h/")...)
		} else {
			err = uerr
		}
	}
	if err == nil {
		err = eerr
	}
	if err != nil {
		s.log.Warn("service secrets unreadable", "service_id", rec.ID, "error", backend.ErrorCode(err))
	}
	return append(out, s.signInSecrets(ctx, rec.ID)...)
}

// signInSecrets are the tokens and client secret of a service's sign-in, and of every person's
// own sign-in to it.
func (s *Hub) signInSecrets(ctx context.Context, serviceID string) []string {
	var recs []backend.OAuthRecord
	if r, err := s.store.GetOAuth(ctx, serviceID, ""); err == nil {
		recs = append(recs, r)
	}
	if own, err := s.store.PersonOAuths(ctx, serviceID); err == nil {
		recs = append(recs, own...)
	}
	var out []string
	for _, r := range recs {
		clientField, tokenField, _, row := backend.OAuthFields(r.ServiceID, r.PersonID)
		var tok backend.OAuthToken
		if len(r.SealedToken) > 0 && s.secrets.openJSON(tokenField, row, r.SealedToken, &tok) == nil {
			out = append(out, tok.AccessToken, tok.RefreshToken)
		}
		var c backend.ServiceOAuthClient
		if len(r.SealedClient) > 0 && s.secrets.openJSON(clientField, row, r.SealedClient, &c) == nil {
			out = append(out, c.Secret)
		}
	}
	return out
}

// heldMask is the mask over every secret the server holds, for text agents have it store.
func (s *Hub) heldMask() *secret.Mask { return s.cfg.Redactor.Mask() }

// maskStrings masks each string of a list in place.
func maskStrings(m *secret.Mask, list []string) {
	for i := range list {
		list[i] = m.String(list[i])
	}
}

// maskPlaybook masks every text field of a playbook about to be stored.
func maskPlaybook(m *secret.Mask, p *backend.Playbook) {
	if m.Empty() {
		return
	}
	p.Title, p.Body, p.Exec, p.Skill = m.String(p.Title), m.String(p.Body), m.String(p.Exec), m.String(p.Skill)
	maskStrings(m, p.Triggers)
}

// maskPlaybookInput masks the text of a new playbook a proposal carries.
func maskPlaybookInput(m *secret.Mask, in *backend.PlaybookInput) {
	if m.Empty() || in == nil {
		return
	}
	in.Title, in.Body, in.Exec, in.Skill = m.String(in.Title), m.String(in.Body), m.String(in.Exec), m.String(in.Skill)
	in.Triggers = append([]string(nil), in.Triggers...)
	maskStrings(m, in.Triggers)
}

// maskEdit masks the text of a held edit.
func maskEdit(m *secret.Mask, e *backend.PlaybookEdit) {
	if m.Empty() || e == nil {
		return
	}
	for _, f := range []**string{&e.Title, &e.Body} {
		if *f != nil {
			v := m.String(**f)
			*f = &v
		}
	}
	if e.Triggers != nil {
		t := append([]string(nil), (*e.Triggers)...)
		maskStrings(m, t)
		e.Triggers = &t
	}
}

// maskLearning masks what an agent writes into a proposal or a signal: rationale, evidence,
// the ops' text and the new playbook.
func maskLearning(m *secret.Mask, rationale *string, ev *backend.Evidence, ops []backend.PlaybookOp) {
	if m.Empty() {
		return
	}
	*rationale = m.String(*rationale)
	ev.FailureSummary = m.String(ev.FailureSummary)
	ev.UserFeedbackExcerpt = m.String(ev.UserFeedbackExcerpt)
	ev.CorrectedOutputHint = m.String(ev.CorrectedOutputHint)
	for i := range ops {
		ops[i].Section, ops[i].Anchor, ops[i].Text = m.String(ops[i].Section), m.String(ops[i].Anchor), m.String(ops[i].Text)
		ops[i].Triggers = append([]string(nil), ops[i].Triggers...)
		maskStrings(m, ops[i].Triggers)
	}
}
