package tests

import (
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// versionedApp finds the page's script under its version prefix.
var versionedApp = regexp.MustCompile(`src="/web/(v-[0-9a-f]{12})/app\.js"`)

// TestDashboardServedFromBinary: serve answers / and /signin with the dashboard page and its
// files from the binary, locked down by a CSP that allows only its own origin; every JS module
// is served and the whole is under the size budget.
func TestDashboardServedFromBinary(t *testing.T) {
	srv := startFrontDoor(t, nil)
	var version string
	for _, path := range []string{"/", "/signin"} {
		resp, err := http.Get(srv.URL() + path)
		must(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		m := versionedApp.FindSubmatch(body)
		if resp.StatusCode != http.StatusOK || m == nil {
			t.Fatalf("GET %s: %d %.200s", path, resp.StatusCode, body)
		}
		version = string(m[1])
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
	// The page's own prefix is cached for good; plain paths and another version's are revalidated.
	for path, want := range map[string]string{
		"/web/" + version + "/screens/collection.js": "public, max-age=31536000, immutable",
		"/web/screens/collection.js":                 "no-cache",
		"/web/v-000000000000/screens/collection.js":  "no-cache",
	} {
		resp, err := http.Get(srv.URL() + path)
		must(t, err)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != want || resp.Header.Get("ETag") == "" {
			t.Errorf("GET %s: %d, Cache-Control %q, ETag %q; want 200, %q and a tag", path, resp.StatusCode,
				resp.Header.Get("Cache-Control"), resp.Header.Get("ETag"), want)
		}
	}
	for _, path := range []string{"/web/nope.js", "/index.html", "/web/" + version + "/nope.js"} {
		resp, err := http.Get(srv.URL() + path)
		must(t, err)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, resp.StatusCode)
		}
	}
}
