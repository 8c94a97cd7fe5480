package tests

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"unsafe"
)

// pty is a pseudo-terminal: the CLI reads its slave side as a terminal; the test types on the master.
type pty struct {
	master, slave *os.File
}

// openPTY opens a pseudo-terminal with the standard library only (Linux ioctls).
func openPTY(t *testing.T) *pty {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { _ = master.Close() })
	var unlock int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); errno != 0 {
		t.Fatalf("unlock pty: %v", errno)
	}
	var n uint32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); errno != 0 {
		t.Fatalf("pty number: %v", errno)
	}
	slave, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pty slave: %v", err)
	}
	t.Cleanup(func() { _ = slave.Close() })
	return &pty{master: master, slave: slave}
}

// answer types line on the terminal for the next read.
func (p *pty) answer(t *testing.T, line string) {
	t.Helper()
	if _, err := p.master.WriteString(line); err != nil {
		t.Fatalf("type on pty: %v", err)
	}
}
