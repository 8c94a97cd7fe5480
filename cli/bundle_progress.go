package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// importProgress shows that a large import is under way while the server applies it, in one
// transaction that says nothing until it ends: on a terminal a spinner with the bundle's counts
// and the time so far, elsewhere a plain line before and after. Small bundles get neither. The
// returned stop ends it once the server answered.
func importProgress(w io.Writer, counts bundleTally, size int) (stop func()) {
	if counts.total() < largeBundleCards {
		return func() {}
	}
	start := time.Now()
	if !writesToTerminal(w) {
		fmt.Fprintf(w, "Importing %s (%d bytes)…\n", counts, size)
		return func() {
			fmt.Fprintf(w, "The server answered after %s\n", time.Since(start).Round(100*time.Millisecond))
		}
	}
	bar := progressbar.NewOptions(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("Importing "+counts.String()),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
	)
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				_ = bar.Add(1)
			}
		}
	}()
	return func() {
		close(done)
		<-ended
		_ = bar.Finish()
	}
}
