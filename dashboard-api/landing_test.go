package dashboardapi

import "testing"

// The landing page draws what screens/collection.js draws, so two of its counts follow
// JavaScript's rules: String length in UTF-16 code units, and encodeURIComponent.
func TestLandingCountsAsTheScriptDoes(t *testing.T) {
	for s, want := range map[string]int{"": 0, "abc": 3, "é": 1, "日本": 2, "😀": 2, "a😀b": 4} {
		if got := utf16Length(s); got != want {
			t.Errorf("utf16Length(%q) = %d, want %d", s, got, want)
		}
	}
	// The right-hand sides are what encodeURIComponent answers in a browser.
	for s, want := range map[string]string{
		"pb_deploy":     "pb_deploy",
		"a b/c?d#e&f=g": "a%20b%2Fc%3Fd%23e%26f%3Dg",
		"-_.!~*'()":     "-_.!~*'()",
		"é😀":            "%C3%A9%F0%9F%98%80",
	} {
		if got := uriComponent(s); got != want {
			t.Errorf("uriComponent(%q) = %q, want %q", s, got, want)
		}
	}
}
