package proxy

import (
	"bytes"
	"strings"
	"sync"
)

// ring keeps the last bytes written to it: a local server's stderr, for its health. Writes
// never block, so a chatty server can never stall on a full pipe.
type ring struct {
	mu   sync.Mutex
	max  int
	buf  []byte
	lost bool
}

func newRing(max int) *ring { return &ring{max: max} }

func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, p...)
	if over := len(r.buf) - r.max; over > 0 {
		r.buf = append(r.buf[:0], r.buf[over:]...)
		r.lost = true
	}
	return len(p), nil
}

// String returns the kept tail, starting at a line boundary when older output was dropped.
func (r *ring) String() string {
	r.mu.Lock()
	b := bytes.Clone(r.buf)
	lost := r.lost
	r.mu.Unlock()
	if lost {
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i+1 < len(b) {
			b = b[i+1:]
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
