package core

import (
	"context"
	"encoding/base64"
	"net/url"
	"strconv"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/secret"
)

// hostPolicy is the target policy of SPEC §10 for a service whose URL an admin set (byAdmin)
// or not: loopback and public hosts for everyone, private ranges only where an admin set the
// URL, link-local and cloud metadata hosts for nobody unless Config.AllowMetadataHosts. It is
// applied to the URL's text when the URL is saved (checkServiceHost) and, carried by the target,
// to every address the proxy dials for the service, so a name that resolves inward meets it too.
func (s *Hub) hostPolicy(byAdmin bool) backend.HostPolicy {
	return backend.HostPolicy{AllowPrivate: byAdmin, AllowMetadata: s.cfg.AllowMetadataHosts}
}

// actorIsAdmin reports whether the caller has the admin scope and, as a person, the admin role:
// a member's own admin-scope token sets no URL into private ranges.
func actorIsAdmin(ctx context.Context) bool {
	a, ok := backend.ActorFrom(ctx)
	return ok && a.IsAdmin()
}

// checkServiceHost applies hostPolicy to the host a service URL spells, for the caller.
func (s *Hub) checkServiceHost(ctx context.Context, field, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return backend.Invalid(field, "is not a URL")
	}
	host := u.Hostname()
	class := backend.ClassifyHost(host)
	if s.hostPolicy(actorIsAdmin(ctx)).Allows(class) {
		return nil
	}
	if class == backend.HostMetadata {
		return backend.Errorf(backend.CodeForbidden, "%s: host %q is link-local or a cloud metadata address, which services may not use",
			field, backend.Clip(host, 100)).WithDetail("field", field).
			WithHint("point the service at a loopback, private or public host; an operator may allow these hosts " +
				"with agent-deck serve --allow-metadata-hosts (AGENT_DECK_ALLOW_METADATA_HOSTS)")
	}
	_, err = backend.RequireAdmin(ctx, "register a service on a private-range host")
	e := backend.AsError(err)
	e.Message = field + ": host " + strconv.Quote(backend.Clip(host, 100)) + " is in a private range; " + e.Message
	return e.WithDetail("field", field).
		WithHint("agents may use loopback and public hosts; ask an admin to register private-range hosts")
}

// maskedURL is a service URL as every read shows it: stored userinfo replaced by MaskedValue.
// Sent back unchanged in a patch, it keeps the stored userinfo.
func maskedURL(rec backend.ServiceRecord) string {
	if len(rec.SealedUserinfo) == 0 || rec.URL == "" {
		return rec.URL
	}
	return strings.Replace(rec.URL, "://", "://"+backend.MaskedValue+"@", 1)
}

// sealUserinfo moves the userinfo of raw into rec.SealedUserinfo and the rest into rec.URL; a
// masked userinfo keeps the stored one, no userinfo clears it.
func (s *Hub) sealUserinfo(field, raw string, rec *backend.ServiceRecord) error {
	u, err := url.Parse(raw)
	if err != nil {
		return backend.Invalid(field, "is not a URL")
	}
	info := u.User
	u.User = nil
	rec.URL = raw
	if info == nil {
		rec.SealedUserinfo = nil
		return nil
	}
	rec.URL = u.String()
	if _, hasPass := info.Password(); info.Username() == backend.MaskedValue && !hasPass {
		if len(rec.SealedUserinfo) == 0 {
			return backend.Invalid(field, "the userinfo is %q but none is stored to keep; send the real user:password",
				backend.MaskedValue)
		}
		return nil
	}
	if pass, _ := info.Password(); strings.ContainsAny(info.Username()+pass, "\r\n\x00") {
		return backend.Invalid(field, "the userinfo must not contain CR, LF or NUL")
	}
	rec.SealedUserinfo, err = s.secrets.seal(backend.FieldServiceURLUserinfo, rec.ID, []byte(info.String()))
	return err
}

// basicAuthHeader turns opened URL userinfo (user:password, escaped as written) into an
// Authorization header value.
func basicAuthHeader(userinfo string) (string, error) {
	u, err := url.Parse("http://" + userinfo + "@h/")
	if err != nil || u.User == nil {
		return "", secret.Unreadable("", err)
	}
	pass, _ := u.User.Password()
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pass)), nil
}
