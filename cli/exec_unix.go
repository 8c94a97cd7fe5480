//go:build unix

package cli

import (
	"os/exec"
	"syscall"
)

func signalNumber(e *exec.ExitError) int {
	if ws, ok := e.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return int(ws.Signal())
	}
	return 0
}
