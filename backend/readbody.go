package backend

import (
	"bytes"
	"io"
)

// presizeMax is the largest announced body length taken at its word.
const presizeMax = 64 << 10

// ReadAnnounced reads r whole. A body whose announced length (a Content-Length; 0 or less for
// none) is small is read into one buffer of that length: io.ReadAll starts at 512 bytes and
// copies as it grows, three buffers for a tools/call of a kilobyte or two on the hot paths. A
// larger announced length allocates nothing ahead of the bytes, so a peer announcing megabytes
// and sending nothing costs nothing.
func ReadAnnounced(r io.Reader, announced int64) ([]byte, error) {
	if announced <= 0 || announced > presizeMax {
		return io.ReadAll(r)
	}
	b := bytes.NewBuffer(make([]byte, 0, announced+bytes.MinRead)) // ReadFrom wants MinRead free to see EOF
	_, err := b.ReadFrom(r)
	return b.Bytes(), err
}
