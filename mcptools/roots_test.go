package mcptools

import "testing"

// TestRootPath: only absolute file:// URIs name a workspace.
func TestRootPath(t *testing.T) {
	cases := []struct {
		name, uri, want string
		ok              bool
	}{
		{"unix path", "file:///home/me/project", "/home/me/project", true},
		{"trailing slash", "file:///home/me/project/", "/home/me/project", true},
		{"escaped space", "file:///home/me/my%20project", "/home/me/my project", true},
		{"localhost host", "file://localhost/srv/app", "/srv/app", true},
		{"windows drive", "file:///C:/work/app", "C:/work/app", true},
		{"filesystem root", "file:///", "/", true},
		{"relative", "file:relative/path", "", false},
		{"other host", "file://server/share/app", "", false},
		{"https", "https://example.com/app", "", false},
		{"no scheme", "/home/me/project", "", false},
		{"empty", "", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := rootPath(tc.uri)
			if got != tc.want || ok != tc.ok {
				t.Errorf("rootPath(%q) = %q, %v; want %q, %v", tc.uri, got, ok, tc.want, tc.ok)
			}
		})
	}
}
