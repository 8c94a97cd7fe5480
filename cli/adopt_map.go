package cli

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/harness"
)

// mapServer turns a client's server into a service input, or an item saying why it is skipped.
func mapServer(t harness.Target, s harness.ClientServer, p harness.Paths, base string) adoption {
	a := adoption{item: adoptItem{Name: s.Name, Ignored: s.Ignored}}
	if why := skipReason(t, s, base); why != "" {
		return a.skip(why)
	}
	x := expander{t: t, p: p}
	if s.Remote() {
		a.in = x.remote(s)
	} else {
		a.in = x.local(s)
	}
	a.item.Type = string(a.in.Type)
	if x.problem != "" {
		return a.skip(x.problem)
	}
	if why := clearSecret(a.in); why != "" {
		where := map[bool]string{true: "a header", false: "an env variable"}[s.Remote()]
		return a.skip(why + ", which Agent Deck would store in clear; move it to " + where + " and run again")
	}
	return a.seal()
}

func (a adoption) skip(reason string) adoption {
	a.item.Outcome, a.item.Reason = adoptSkipped, reason
	return a
}

// skipReason says why a server is not adopted at all, "" when it can be.
func skipReason(t harness.Target, s harness.ClientServer, base string) string {
	switch {
	case s.Problem != "":
		return s.Problem
	case isAgentDeck(s, base):
		return "Agent Deck's own entry"
	case s.Disabled:
		return "disabled in " + t.Client
	case s.EnvFile != "":
		return "reads its env from envFile " + s.EnvFile + ", which adopt does not load; put the variables in env and run again"
	case s.URL == "" && s.Command == "":
		return "has neither a command nor a url"
	}
	return ""
}

// seal lists the values the server encrypts (secret-named headers, every env value) and moves a
// secret-looking value under another header name into a credential card, which the server also
// encrypts; two such headers cannot both move, so the server is skipped.
func (a adoption) seal() adoption {
	for _, k := range sortedKeys(a.in.Headers) {
		switch {
		case core.IsSecretHeader(k):
			a.item.Sealed = append(a.item.Sealed, "header "+k)
		case !looksSecret(a.in.Headers[k]):
		case a.cred != nil:
			return a.skip(fmt.Sprintf("headers %s and %s both carry secrets under names Agent Deck does not seal; rename one (e.g. X-Api-Key) and run again", a.cred.HeaderName, k))
		default:
			a.cred = &core.CredentialInput{Label: fmt.Sprintf(adoptCredLabel, a.in.Name, k), Value: a.in.Headers[k],
				Scheme: backend.SchemeHeader, HeaderName: k}
			a.item.Credential = a.cred.Label
			delete(a.in.Headers, k)
		}
	}
	for _, k := range sortedKeys(a.in.LocalEnv) {
		a.item.Sealed = append(a.item.Sealed, "env "+k)
	}
	return a
}

// expander resolves a client's references in config values and remembers the first one it
// cannot resolve.
type expander struct {
	t       harness.Target
	p       harness.Paths
	problem string
}

func (x *expander) one(what, v string) string {
	out, missing, unknown := x.t.Expand(v, os.LookupEnv, x.p)
	switch {
	case x.problem != "":
	case len(missing) > 0:
		x.problem = fmt.Sprintf("%s refers to $%s, which is not set in this shell; export it and run again", what, missing[0])
	case len(unknown) > 0:
		x.problem = fmt.Sprintf("%s refers to %s, which only %s can resolve; put the value in its place and run again", what, unknown[0], x.t.Client)
	}
	return out
}

func (x *expander) each(what string, m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for _, k := range sortedKeys(m) {
		out[k] = x.one(what+" "+k, m[k])
	}
	return out
}

// env reads a variable a Codex entry names.
func (x *expander) env(name string) string {
	v, ok := os.LookupEnv(name)
	if (!ok || v == "") && x.problem == "" {
		x.problem = fmt.Sprintf("reads $%s, which is not set in this shell; export it and run again", name)
	}
	return v
}

// remote maps a server reached over HTTP, with Codex's header variables read now.
func (x *expander) remote(s harness.ClientServer) core.ServiceInput {
	in := core.ServiceInput{Name: s.Name, Type: backend.ServiceRemote, URL: x.one("url", s.URL),
		Transport: transportOf(s.Type), Headers: x.each("header", s.Headers), TimeoutSeconds: s.TimeoutSeconds}
	for _, h := range sortedKeys(s.EnvHeaders) {
		in.Headers = setMap(in.Headers, h, x.env(s.EnvHeaders[h]))
	}
	if s.BearerEnv != "" {
		in.Headers = setMap(in.Headers, "Authorization", "Bearer "+x.env(s.BearerEnv))
	}
	return in
}

// local maps a server the client starts, with Codex's passed-through variables read now.
func (x *expander) local(s harness.ClientServer) core.ServiceInput {
	in := core.ServiceInput{Name: s.Name, Type: backend.ServiceLocal, LocalCommand: x.one("command", s.Command),
		LocalWorkingDir: x.one("cwd", s.Cwd), LocalEnv: x.each("env", s.Env), TimeoutSeconds: s.TimeoutSeconds}
	for i, arg := range s.Args {
		in.LocalArgs = append(in.LocalArgs, x.one(fmt.Sprintf("argument %d", i+1), arg))
	}
	for _, name := range s.PassEnv {
		if v, ok := os.LookupEnv(name); ok {
			in.LocalEnv = setMap(in.LocalEnv, name, v)
		}
	}
	return in
}

func setMap(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

// transportOf maps a client's transport word to Agent Deck's.
func transportOf(typ string) backend.Transport {
	switch strings.ToLower(strings.ReplaceAll(typ, "_", "-")) {
	case "sse":
		return backend.TransportSSE
	case "http", "streamable-http", "streamablehttp":
		return backend.TransportStreamableHTTP
	}
	return ""
}

// isAgentDeck recognizes Agent Deck's own entry: its name, the mcp-stdio bridge, or this
// server's endpoint.
func isAgentDeck(s harness.ClientServer, base string) bool {
	if s.Name == harness.ServerName {
		return true
	}
	if filepath.Base(s.Command) == "agent-deck" && slices.Contains(s.Args, "mcp-stdio") {
		return true
	}
	return s.URL != "" && strings.TrimSuffix(s.URL, "/") == strings.TrimSuffix(base, "/")+"/mcp"
}

// secretPrefixes start values that are keys whatever their length.
var secretPrefixes = []string{"bearer ", "basic ", "token ", "sk-", "sk_", "ghp_", "gho_", "ghs_", "github_pat_",
	"glpat-", "xoxb-", "xoxp-", "xapp-", "akia", "lin_api_", "ntn_", "secret_"}

var tokenRE = regexp.MustCompile(`^[A-Za-z0-9_\-.=+/]{20,}$`)

// looksSecret reports whether a value looks like a key or token: a known prefix, or one word of
// token characters with a run of at least 16 mixing letters and digits (hex, base64), which
// package names, versions and paths are not. Like IsSecretHeader it errs on the side of secrecy.
func looksSecret(v string) bool {
	l := strings.ToLower(strings.TrimSpace(v))
	for _, p := range secretPrefixes {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	if !tokenRE.MatchString(v) || strings.ContainsAny(v[:1], "/.~") {
		return false
	}
	for _, run := range strings.FieldsFunc(v, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		if len(run) >= 16 && strings.ContainsAny(run, "0123456789") &&
			strings.ContainsAny(strings.ToLower(run), "abcdefghijklmnopqrstuvwxyz") {
			return true
		}
	}
	return false
}

// clearSecret names a secret in a field the server stores in clear: a command argument, a URL
// query parameter or the URL's user info. "" when there is none.
func clearSecret(in core.ServiceInput) string {
	for i, a := range in.LocalArgs {
		v := a
		if k, val, ok := strings.Cut(a, "="); ok && strings.HasPrefix(k, "-") {
			v = val
			if core.IsSecretHeader(k) && val != "" {
				return fmt.Sprintf("argument %d (%s) carries a secret", i+1, k)
			}
		}
		if looksSecret(v) {
			return fmt.Sprintf("argument %d looks like a secret", i+1)
		}
		if i > 0 && strings.HasPrefix(in.LocalArgs[i-1], "-") && core.IsSecretHeader(in.LocalArgs[i-1]) &&
			!strings.HasPrefix(a, "-") {
			return fmt.Sprintf("argument %d (after %s) carries a secret", i+1, in.LocalArgs[i-1])
		}
	}
	if u, err := url.Parse(in.URL); err == nil && in.URL != "" {
		for k, vs := range u.Query() {
			if core.IsSecretHeader(k) || slices.ContainsFunc(vs, looksSecret) {
				return fmt.Sprintf("the url's query parameter %s carries a secret", k)
			}
		}
	}
	return ""
}
