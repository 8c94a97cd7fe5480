package proxy

import (
	"testing"
)

// TestExitedOnItsOwn holds issue 27 item 20: whether a local server's exit was a crash does not
// depend on which of two goroutines the scheduler ran first. The crash row whose connection was
// torn down before the exit was reaped is the one the old rule (!stopping) counted as a stop.
func TestExitedOnItsOwn(t *testing.T) {
	died := &exitedError{state: "exit status 3"}
	tests := []struct {
		name     string
		stopping bool
		death    error
		crash    bool
	}{
		{"exited, nothing else happened yet", false, nil, true},
		{"exited; the call that saw it tore the connection down before the exit was reaped", true, died, true},
		{"exited while its connection was still being read", false, died, true},
		{"stopped by the proxy (idle, Forget, Close)", true, errConnClosed, false},
		{"stopped before its connection finished opening", true, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := exitedOnItsOwn(tc.stopping, tc.death); got != tc.crash {
				t.Errorf("crash = %v, want %v", got, tc.crash)
			}
		})
	}
}
