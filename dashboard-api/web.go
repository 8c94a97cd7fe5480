package dashboardapi

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// webFiles is the dashboard: one stylesheet and ES modules, embedded so the binary serves it
// offline with no build step. pageFiles are the page itself (html/template): the shell, and the
// collection screen it draws for a signed-in person (landing.go).
//
//go:embed web
var webFiles embed.FS

//go:embed page
var pageFiles embed.FS

// dashboardCSP lets the page load only its own files and talk only to its own server; the one
// inline script and the one inline stylesheet are the landing page's, allowed by their hashes
// (the two %s): no other inline script or style, and no style attribute, is.
const dashboardCSP = "default-src 'none'; script-src 'self' %s; style-src 'self' %s; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// dashboard serves the page and its files.
type dashboard struct {
	svc     *core.Hub // reads the landing page's collection; nil serves the shell alone
	origins backend.OriginPolicy
	log     *slog.Logger
	pages   *template.Template
	css     template.CSS // style.css, which the landing page carries in itself
	files   http.Handler
	tags    map[string]string
	version string
	shell   []byte
	csp     string
}

// Dashboard returns the web dashboard's handler: the page at / and /signin, the files under
// /web/. The composition root mounts it beside the REST router; the page talks only to /api/v1.
// At / with a valid session cookie the page comes with the person's collection drawn in it,
// read through svc as the person's REST reads are (opts.Origins and opts.Logger as for REST).
//
// The page names the files under /web/v-<hash of all files>/: the modules import each other by
// relative paths, so the whole set loads under that prefix, which is cached for good (immutable)
// and changes with any file. A page load then asks the server for no file at all once the
// browser has them. Plain /web/ paths, and a prefix of another version, are served revalidated
// (no-cache, with an ETag).
func Dashboard(svc *core.Hub, opts Options) http.Handler {
	opts = opts.withDefaults()
	sub, err := fs.Sub(webFiles, "web")
	if err != nil {
		panic(err) // the embedded tree always has web/
	}
	d := &dashboard{svc: svc, origins: opts.Origins, log: opts.Logger,
		files: http.StripPrefix("/web/", http.FileServerFS(sub)), tags: etags(sub)}
	d.version = "v-" + filesVersion(d.tags)
	index, err := fs.ReadFile(pageFiles, "page/index.html")
	if err != nil {
		panic(err)
	}
	collection, err := fs.ReadFile(pageFiles, "page/collection.html")
	if err != nil {
		panic(err)
	}
	index = bytes.ReplaceAll(index, []byte(`"/web/`), []byte(`"/web/`+d.version+`/`))
	d.pages = pageTemplates(index, collection)
	if d.shell, err = renderPage(d.pages, nil); err != nil {
		panic(err)
	}
	css, err := fs.ReadFile(sub, "style.css")
	if err != nil || bytes.Contains(bytes.ToLower(css), []byte("</style")) || bytes.ContainsRune(css, '<') {
		panic(fmt.Sprintf("dashboardapi: style.css cannot go in a style element (%v)", err))
	}
	d.css = template.CSS(css) // our own embedded file
	empty, err := renderPage(d.pages, &landingPage{CSS: d.css})
	if err != nil {
		panic(err)
	}
	d.csp = fmt.Sprintf(dashboardCSP, inlineHash(empty, inlineScript), inlineHash(empty, inlineStyle))
	return d
}

func (d *dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", d.csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-cache")
	if rest, ok := strings.CutPrefix(r.URL.Path, "/web/"); ok {
		if v, file, versioned := strings.Cut(rest, "/"); versioned && strings.HasPrefix(v, "v-") {
			if v == d.version {
				h.Set("Cache-Control", "public, max-age=31536000, immutable")
			}
			rest = file
			r = stripped(r, "/web/"+file)
		}
		if tag, ok := d.tags[rest]; ok {
			h.Set("ETag", tag)
		}
		d.files.ServeHTTP(w, r)
		return
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	// Only / draws the collection: the sign-in page stays the shell whatever the cookie.
	if r.URL.Path == "/" {
		h.Add("Vary", "Cookie")
		if page := d.landingFor(r); page != nil {
			// The person's cards: kept by no cache, shared or the browser's.
			h.Set("Cache-Control", "no-store")
			_, _ = w.Write(page)
			return
		}
	}
	_, _ = w.Write(d.shell)
}

// localAddr is the listener address a request came in on, when the server recorded it.
func localAddr(r *http.Request) net.Addr {
	a, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return a
}

// stripped is r for another path (the version prefix taken out).
func stripped(r *http.Request, path string) *http.Request {
	r2 := r.Clone(r.Context())
	r2.URL.Path, r2.URL.RawPath = path, ""
	return r2
}

// filesVersion names the set of embedded files: a hash of every file's tag, in path order.
func filesVersion(tags map[string]string) string {
	sum := sha256.New()
	for _, p := range slices.Sorted(maps.Keys(tags)) {
		sum.Write([]byte(p + "=" + tags[p] + "\n"))
	}
	return hex.EncodeToString(sum.Sum(nil))[:12]
}

// etags are the strong validators of the embedded files, by path under web/: a hash of the
// content, since embedded files carry no modification time.
func etags(sub fs.FS) map[string]string {
	tags := map[string]string{}
	_ = fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(sub, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		tags[p] = `"` + hex.EncodeToString(sum[:12]) + `"`
		return nil
	})
	return tags
}
