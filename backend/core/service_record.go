package core

import (
	"context"
	"slices"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// transports are the transports a remote service may ask for.
var transports = []backend.Transport{backend.TransportAuto, backend.TransportStreamableHTTP, backend.TransportSSE}

// forget drops the proxy's connection and caches of a changed or deleted service.
func (s *Hub) forget(id string) {
	s.cfg.Redactor.Forget(id)
	if s.downstream != nil && id != "" {
		s.downstream.Forget(id)
	}
}

// serviceView is a service as every read shows it: secret header values and all local env
// values masked, live health merged in. If the stored secrets cannot be opened (the key
// changed) the card is still shown, without the sealed names; using the service reports why.
func (s *Hub) serviceView(rec backend.ServiceRecord) backend.ServiceCard {
	card := rec.ServiceCard
	card.URL = maskedURL(rec)
	headers := map[string]string{}
	for k, v := range rec.PlainHeaders {
		headers[k] = v
	}
	if sealed, err := s.secrets.openMap(backend.FieldServiceHeaders, rec.ID, rec.SealedHeaders); err == nil {
		for k := range sealed {
			headers[k] = backend.MaskedValue
		}
	} else {
		s.log.Warn("service headers unreadable", "service_id", rec.ID, "error", backend.ErrorCode(err))
	}
	card.Headers = nil
	if len(headers) > 0 {
		card.Headers = headers
	}
	card.LocalEnv = nil
	if env, err := s.secrets.openMap(backend.FieldServiceEnv, rec.ID, rec.SealedEnv); err == nil {
		card.LocalEnv = maskedKeys(env)
	} else {
		s.log.Warn("service env unreadable", "service_id", rec.ID, "error", backend.ErrorCode(err))
	}
	card.DisabledTools = backend.OrEmpty(card.DisabledTools)
	if card.Type == backend.ServiceLocal {
		card.Transport = ""
	}
	if card.TimeoutSeconds <= 0 {
		card.TimeoutSeconds = int(s.cfg.DefaultServiceTimeout.Seconds())
	}
	card.LocalArgs = backend.OrEmpty(card.LocalArgs)
	if s.downstream != nil {
		if st, ok := s.downstream.Status(rec.ID); ok {
			card.Health = mergeHealth(card.Health, st.Health)
		}
	}
	if card.Health.Status == "" {
		card.Health.Status = backend.HealthUnknown
	}
	return card
}

// buildService validates in and writes it into rec. Headers and env are validated and sealed
// only when withHeaders / withEnv say they are being set; rec.ID must be set first, since sealed
// values are bound to their row.
func (s *Hub) buildService(ctx context.Context, in ServiceInput, rec *backend.ServiceRecord, withHeaders, withEnv bool) error {
	var err error
	if rec.Name, err = backend.CleanName("name", in.Name); err != nil {
		return err
	}
	if !slices.Contains(backend.ServiceTypes, in.Type) {
		return backend.InvalidEnum("type", in.Type, backend.ServiceTypes)
	}
	rec.Type = in.Type
	rec.PinTools = in.PinTools == nil || *in.PinTools
	rec.Personal = in.Personal
	if rec.Description, err = backend.CleanText("description", strings.TrimSpace(in.Description), backend.MaxDescriptionChars, true); err != nil {
		return err
	}
	if err := s.buildTarget(ctx, in, rec); err != nil {
		return err
	}
	if rec.TimeoutSeconds, err = backend.CheckTimeout("timeout_seconds", in.TimeoutSeconds); err != nil {
		return err
	}
	if rec.CredentialID, err = linkedCredentialID(ctx, s.store, in.CredentialID); err != nil {
		return err
	}
	if withHeaders {
		if err := s.sealHeaders(in, rec); err != nil {
			return err
		}
	}
	if withEnv {
		if err := checkEnv("local_env", in.LocalEnv); err != nil {
			return err
		}
		if rec.SealedEnv, err = s.secrets.sealMap(backend.FieldServiceEnv, rec.ID, in.LocalEnv); err != nil {
			return err
		}
	}
	return nil
}

// buildTarget sets where the service is reached. A remote URL's userinfo is sealed apart, and a
// URL that differs from the stored one must pass the host policy (checkServiceHost) and records
// who set it (URLByAdmin: whether its name may resolve to a private-range address).
func (s *Hub) buildTarget(ctx context.Context, in ServiceInput, rec *backend.ServiceRecord) error {
	if in.Type != backend.ServiceRemote {
		rec.SealedUserinfo = nil
		return buildLocal(in, rec)
	}
	before := maskedURL(*rec)
	if err := buildRemote(in, rec); err != nil {
		return err
	}
	if err := s.sealUserinfo("url", rec.URL, rec); err != nil {
		return err
	}
	if maskedURL(*rec) == before {
		return nil
	}
	rec.URLByAdmin = actorIsAdmin(ctx)
	return s.checkServiceHost(ctx, "url", rec.URL)
}

func buildRemote(in ServiceInput, rec *backend.ServiceRecord) error {
	var err error
	if rec.URL, err = backend.CheckHTTPURL("url", in.URL); err != nil {
		return err
	}
	rec.Transport = in.Transport
	if rec.Transport == "" {
		rec.Transport = backend.TransportAuto
	}
	if !slices.Contains(transports, rec.Transport) {
		return backend.InvalidEnum("transport", rec.Transport, transports)
	}
	switch {
	case strings.TrimSpace(in.LocalCommand) != "":
		return backend.Invalid("local_command", "applies only to type local-mcp; type mcp is reached by url")
	case len(in.LocalArgs) > 0:
		return backend.Invalid("local_args", "applies only to type local-mcp")
	case strings.TrimSpace(in.LocalWorkingDir) != "":
		return backend.Invalid("local_working_dir", "applies only to type local-mcp")
	case len(in.LocalEnv) > 0:
		return backend.Invalid("local_env", "applies only to type local-mcp")
	}
	rec.LocalCommand, rec.LocalArgs, rec.LocalWorkingDir = "", []string{}, ""
	return nil
}

func buildLocal(in ServiceInput, rec *backend.ServiceRecord) error {
	switch {
	case strings.TrimSpace(in.URL) != "":
		return backend.Invalid("url", "applies only to type mcp; type local-mcp is started from local_command")
	case in.Transport != "" && in.Transport != backend.TransportAuto:
		return backend.Invalid("transport", "applies only to type mcp; type local-mcp talks over stdio")
	case len(in.Headers) > 0:
		return backend.Invalid("headers", "apply only to type mcp; give a local-mcp server local_env instead")
	}
	// Stored as auto (the column is never empty); shown empty, since stdio has no transport choice.
	rec.URL, rec.Transport = "", backend.TransportAuto
	rec.LocalCommand = strings.TrimSpace(in.LocalCommand)
	if rec.LocalCommand == "" {
		return backend.Invalid("local_command", "is required for type local-mcp: the program to start, e.g. npx")
	}
	if backend.HasControl(rec.LocalCommand, false) || len(rec.LocalCommand) > 1024 {
		return backend.Invalid("local_command", "must be one line of at most 1024 bytes")
	}
	if len(in.LocalArgs) > backend.MaxArgs {
		return backend.Invalid("local_args", "at most %d arguments, got %d", backend.MaxArgs, len(in.LocalArgs))
	}
	for i, a := range in.LocalArgs {
		if strings.ContainsRune(a, 0) || len(a) > backend.MaxValueBytes {
			return backend.Invalid("local_args", "argument %d must be at most %d bytes without NUL", i+1, backend.MaxValueBytes)
		}
	}
	rec.LocalArgs = append([]string{}, in.LocalArgs...)
	rec.LocalWorkingDir = strings.TrimSpace(in.LocalWorkingDir)
	if backend.HasControl(rec.LocalWorkingDir, false) {
		return backend.Invalid("local_working_dir", "must not contain control characters")
	}
	return nil
}

// linkedCredentialID resolves the credential a service authenticates with ("" = none).
func linkedCredentialID(ctx context.Context, st backend.Store, ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "", nil
	}
	c, err := backend.CredentialByRef(ctx, st, ref)
	if backend.IsNotFound(err) {
		// A bad field value, not a missing resource: INVALID_ARGUMENT naming the field.
		e := backend.AsError(err)
		return "", &backend.Error{Code: backend.CodeInvalidArgument, Message: "credential_id: " + e.Message,
			Hint: "link an existing credential (id or label), or create it first", Details: map[string]any{
				"field": "credential_id", "accepted": e.Details["known"]}}
	}
	if err != nil {
		return "", err
	}
	return c.ID, nil
}

// sealHeaders validates headers and seals the secret-looking ones.
func (s *Hub) sealHeaders(in ServiceInput, rec *backend.ServiceRecord) error {
	h, err := checkHeaders("headers", in.Headers)
	if err != nil {
		return err
	}
	plain, secret := splitHeaders(h)
	rec.PlainHeaders = plain
	rec.SealedHeaders, err = s.secrets.sealMap(backend.FieldServiceHeaders, rec.ID, secret)
	return err
}
