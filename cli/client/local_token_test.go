package client

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLocalToken holds the client half of issue 15 item 2: the local admin token goes to
// the server running on the home, whichever way its URL is spelled, and to no other.
func TestLocalToken(t *testing.T) {
	home := t.TempDir()
	for name, body := range map[string]string{"server.json": `{"url":"http://127.0.0.1:4321","pid":1}`,
		"admin.token": "secret-admin\n"} {
		if err := os.WriteFile(filepath.Join(home, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, server, token, want string
	}{
		{"local", "", "", "secret-admin"},
		{"own server", "http://127.0.0.1:4321", "", "secret-admin"},
		{"own server, trailing slash and case", "HTTP://127.0.0.1:4321/", "", "secret-admin"},
		{"other port", "http://127.0.0.1:4322", "", ""},
		{"other host", "https://deck.example.test", "", ""},
		{"other scheme", "https://127.0.0.1:4321", "", ""},
		{"explicit token", "https://deck.example.test", "given", "given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(Options{Home: home, Server: tt.server, Token: tt.token})
			if err != nil {
				t.Fatal(err)
			}
			if c.Token != tt.want {
				t.Errorf("token %q, want %q", c.Token, tt.want)
			}
		})
	}
}
