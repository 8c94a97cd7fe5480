package tests

import (
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDashboardServedFromBinary: serve answers / and /signin with the dashboard page and its
// files from the binary, locked down by a CSP that allows only its own origin; every JS module
// is served and the whole is under the size budget.
func TestDashboardServedFromBinary(t *testing.T) {
	srv := startFrontDoor(t, nil)
	for _, path := range []string{"/", "/signin"} {
		resp, err := http.Get(srv.URL() + path)
		must(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `src="/web/app.js"`) {
			t.Fatalf("GET %s: %d %.200s", path, resp.StatusCode, body)
		}
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("GET %s: CSP %q", path, csp)
		}
	}
	var total int64
	err := filepath.WalkDir("../dashboard-api/web", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, "../dashboard-api/web"))
		resp, err := http.Get(srv.URL() + "/web" + rel)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET /web%s: %d", rel, resp.StatusCode)
		}
		if strings.HasSuffix(p, ".js") {
			info, err := os.Stat(p)
			if err != nil {
				return err
			}
			total += info.Size()
		}
		return nil
	})
	must(t, err)
	if total == 0 || total > 150<<10 {
		t.Errorf("the dashboard's JavaScript is %d bytes; the budget is 150 KiB", total)
	}
	for _, path := range []string{"/web/nope.js", "/index.html"} {
		resp, err := http.Get(srv.URL() + path)
		must(t, err)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, resp.StatusCode)
		}
	}
}
