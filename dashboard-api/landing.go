package dashboardapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"regexp"
	"strings"
	"sync"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// The landing page: a browser that opens / with a valid session cookie gets the collection
// screen drawn into the page, so its cards are painted with the page's first frame instead of
// after the modules, the session check and three reads. The cards are the person's own REST
// reads (the same use cases under the same Actor, so the same visibility), and the page carries
// those reads' JSON for the script, which takes the drawn screen over without drawing it again.

// landingPage is what the page template needs to draw the collection; nil draws the shell alone
// (the sign-in page, a browser without a session).
type landingPage struct {
	// CSS is the stylesheet, in the page: a first paint waits for no file.
	CSS   template.CSS
	Cards []landingCard
	// Data is {"services": […], "credentials": […], "playbooks": […]}, each exactly the body of
	// the GET /api/v1/<list> the person would make.
	Data landingData
}

type landingData struct {
	Services    json.RawMessage `json:"services"`
	Credentials json.RawMessage `json:"credentials"`
	Playbooks   json.RawMessage `json:"playbooks"`
}

// landingCard is one card as screens/collection.js draws it (cardView).
type landingCard struct {
	Type, Kind, ID, Name string
	Open, History        template.URL // links of services and playbooks, under the page's own #
	Service              *landingService
	Credential           *landingCredential
	Playbook             *landingPlaybook
}

type landingService struct {
	Where, Description, Health, HealthText string
}

type landingCredential struct {
	EnvName, Scheme string
	Tags            []string
	HasSecret       bool
}

type landingPlaybook struct {
	Triggers []string
	// Length is the body's length as the script counts it (UTF-16 code units).
	Length int
}

// healthWords are the words ui.js's health() shows for each status.
var healthWords = map[backend.HealthStatus]string{
	backend.HealthHealthy: "Healthy", backend.HealthUnhealthy: "Unhealthy",
	backend.HealthAuthRequired: "Sign-in needed", backend.HealthUnknown: "Not checked yet",
}

// readLanding reads the collection of the session's person through the use cases the REST lists
// call, under the Actor the REST middleware would set for this cookie.
func readLanding(ctx context.Context, svc *core.Hub, secret string) (*landingPage, error) {
	actor, err := svc.AuthenticateDashboard(ctx, secret)
	if err != nil {
		return nil, err
	}
	ctx = backend.WithActor(ctx, actor)
	// The three reads are independent, as the page's three fetches were: side by side.
	var (
		wg          sync.WaitGroup
		services    []backend.ServiceCard
		credentials []backend.Credential
		playbooks   []backend.Playbook
		errs        [3]error
	)
	wg.Go(func() { services, errs[0] = svc.ListServices(ctx) })
	wg.Go(func() { credentials, errs[1] = svc.ListCredentials(ctx) })
	wg.Go(func() { playbooks, errs[2] = svc.ListPlaybooks(ctx) })
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	p := &landingPage{}
	for _, list := range []struct {
		out *json.RawMessage
		v   any
	}{{&p.Data.Services, services}, {&p.Data.Credentials, credentials}, {&p.Data.Playbooks, playbooks}} {
		body, err := encodeResult(list.v)
		if err != nil {
			return nil, err
		}
		*list.out = body
	}
	for _, s := range services {
		status := s.Health.Status
		if status == "" {
			status = backend.HealthUnknown
		}
		words := healthWords[status]
		if words == "" {
			words = string(status)
		}
		where := s.URL
		if s.Type == backend.ServiceLocal {
			where = "local: " + s.LocalCommand
		}
		p.Cards = append(p.Cards, landingCard{Type: "service", Kind: "Service", ID: s.ID, Name: s.Name,
			Open:    template.URL("#/services/" + uriComponent(s.ID)),
			Service: &landingService{Where: where, Description: s.Description, Health: string(status), HealthText: words}})
	}
	for _, c := range credentials {
		p.Cards = append(p.Cards, landingCard{Type: "credential", Kind: "Credential", ID: c.ID, Name: c.Label,
			Credential: &landingCredential{EnvName: c.EnvName, Scheme: string(c.Scheme), Tags: c.Tags, HasSecret: c.HasSecret}})
	}
	for _, pb := range playbooks {
		p.Cards = append(p.Cards, landingCard{Type: "playbook", Kind: "Playbook", ID: pb.ID, Name: pb.Title,
			History:  template.URL("#/playbooks/" + uriComponent(pb.ID) + "/history"),
			Playbook: &landingPlaybook{Triggers: pb.Triggers, Length: utf16Length(pb.Body)}})
	}
	return p, nil
}

// utf16Length is the length of s in UTF-16 code units, as JavaScript's String length counts.
func utf16Length(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// uriComponent escapes s as JavaScript's encodeURIComponent does (api.js's seg).
func uriComponent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// pageTemplates parses the page and the collection screen, with the files under their version
// prefix. Line breaks in the collection's template are for reading and are taken out.
func pageTemplates(index, collection []byte) *template.Template {
	flat := regexp.MustCompile(`\n\s*`).ReplaceAll(collection, nil)
	t := template.Must(template.New("collection.html").Parse(string(flat)))
	return template.Must(t.New("index.html").Parse(string(index)))
}

// renderPage draws the page: the shell alone for nil, else with the landing screen.
func renderPage(t *template.Template, p *landingPage) ([]byte, error) {
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "index.html", p); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// The landing page's one inline script and its stylesheet, which the CSP allows by their hashes.
var (
	inlineScript = regexp.MustCompile(`<script>([^<]*)</script>`)
	inlineStyle  = regexp.MustCompile(`<style>([^<]*)</style>`)
)

// inlineHash is the CSP source that allows the text of the landing page's element re finds,
// and only that text.
func inlineHash(page []byte, re *regexp.Regexp) string {
	m := re.FindSubmatch(page)
	if m == nil {
		panic("dashboardapi: the landing page lacks " + re.String()) // the embedded page always has it
	}
	sum := sha256.Sum256(m[1])
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// landingFor draws the landing page for a request at / with a session cookie, or returns nil
// when the shell should be served instead (the cookie is not a valid session, the Host is not
// one the server answers to, a read failed: the script then shows sign-in or the error).
func (d *dashboard) landingFor(r *http.Request) []byte {
	c, err := r.Cookie(SessionCookie)
	if err != nil || c.Value == "" || d.svc == nil {
		return nil
	}
	if err := d.origins.CheckHost(r.Host, localAddr(r)); err != nil {
		return nil
	}
	p, err := readLanding(r.Context(), d.svc, c.Value)
	if err != nil {
		if code := backend.ErrorCode(err); code != backend.CodeUnauthenticated && code != backend.CodeCanceled {
			d.log.Warn("drawing the landing page", "err", err)
		}
		return nil
	}
	p.CSS = d.css
	page, err := renderPage(d.pages, p)
	if err != nil {
		d.log.Error("drawing the landing page", "err", err)
		return nil
	}
	return page
}
