package dashboardapi

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
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
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", dashboardCSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-cache")
		if strings.HasPrefix(r.URL.Path, "/web/") {
			// Revalidated on every load (no-cache), answered 304 while unchanged: the browser
			// keeps its copy and the compiled code of each module.
			if tag, ok := tags[strings.TrimPrefix(r.URL.Path, "/web/")]; ok {
				h.Set("ETag", tag)
			}
			files.ServeHTTP(w, r)
			return
		}
		h.Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(index)
	})
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
