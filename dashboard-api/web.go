package dashboardapi

import (
	"embed"
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
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", dashboardCSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-cache")
		if strings.HasPrefix(r.URL.Path, "/web/") {
			files.ServeHTTP(w, r)
			return
		}
		h.Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(index)
	})
}
