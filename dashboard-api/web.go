package dashboardapi

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"maps"
	"net/http"
	"slices"
	"strings"
)

// webFiles is the dashboard: plain HTML, one stylesheet and ES modules, embedded so the binary
// serves it offline with no build step.
//
//go:embed web
var webFiles embed.FS

// dashboardCSP lets the page load only its own files and talk only to its own server.
const dashboardCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// Dashboard returns the web dashboard's handler: index.html at / and /signin, the files under
// /web/. The composition root mounts it beside the REST router; the page talks only to /api/v1.
//
// index.html names the files under /web/v-<hash of all files>/: the modules import each other by
// relative paths, so the whole set loads under that prefix, which is cached for good (immutable)
// and changes with any file. A page load then asks the server for no file at all once the
// browser has them. Plain /web/ paths, and a prefix of another version, are served revalidated
// (no-cache, with an ETag).
func Dashboard() http.Handler {
	sub, err := fs.Sub(webFiles, "web")
	if err != nil {
		panic(err) // the embedded tree always has web/
	}
	files := http.StripPrefix("/web/", http.FileServerFS(sub))
	index, err := fs.ReadFile(sub, "index.html")
	if err != nil {
		panic(err)
	}
	tags := etags(sub)
	version := "v-" + filesVersion(tags)
	index = bytes.ReplaceAll(index, []byte(`"/web/`), []byte(`"/web/`+version+`/`))
	landing := bytes.Replace(index, []byte("</head>"), []byte(landingReads+"</head>"), 1)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", dashboardCSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-cache")
		if rest, ok := strings.CutPrefix(r.URL.Path, "/web/"); ok {
			if v, file, versioned := strings.Cut(rest, "/"); versioned && strings.HasPrefix(v, "v-") {
				if v == version {
					h.Set("Cache-Control", "public, max-age=31536000, immutable")
				}
				rest = file
				r = stripped(r, "/web/"+file)
			}
			if tag, ok := tags[rest]; ok {
				h.Set("ETag", tag)
			}
			files.ServeHTTP(w, r)
			return
		}
		h.Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/" && hasSessionCookie(r) {
			_, _ = w.Write(landing)
			return
		}
		_, _ = w.Write(index)
	})
}

// landingReads asks the browser to start the landing screen's reads (the session check and the
// collection's three lists) while it is still loading the modules that will ask for them: the
// screen's fetches then take the answers already on their way. Only a page at / with a session
// cookie gets them: a sign-in page must not see a session check answered before it signed in.
const landingReads = `<link rel="preload" href="/api/v1/dashboard/session" as="fetch" crossorigin>
<link rel="preload" href="/api/v1/services" as="fetch" crossorigin>
<link rel="preload" href="/api/v1/credentials" as="fetch" crossorigin>
<link rel="preload" href="/api/v1/playbooks" as="fetch" crossorigin>
`

// hasSessionCookie reports whether r carries a dashboard session cookie (valid or not).
func hasSessionCookie(r *http.Request) bool {
	c, err := r.Cookie(SessionCookie)
	return err == nil && c.Value != ""
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
