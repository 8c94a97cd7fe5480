package core_test

import (
	"testing"

	"github.com/agent-deck/agent-deck/backend/core"
)

func TestIsSecretHeader(t *testing.T) {
	tests := []struct {
		name   string
		header string
		want   bool
	}{
		{"authorization", "Authorization", true},
		{"proxy authorization", "Proxy-Authorization", true},
		{"cookie", "Cookie", true},
		{"api key", "X-Api-Key", true},
		{"token lower", "x-auth-token", true},
		{"secret", "X-Client-Secret", true},
		{"password upper", "X-PASSWORD", true},
		{"accept", "Accept", false},
		{"user agent", "User-Agent", false},
		{"tenant", "X-Tenant", false},
		{"content type", "Content-Type", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := core.IsSecretHeader(tt.header); got != tt.want {
				t.Errorf("IsSecretHeader(%q) = %v, want %v", tt.header, got, tt.want)
			}
		})
	}
}
