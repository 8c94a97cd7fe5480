package tests

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// measureConcurrent runs op total times spread over workers goroutines and returns each call's
// duration, sorted.
func measureConcurrent(tb testing.TB, workers, total int, op func() error) []time.Duration {
	tb.Helper()
	durations := make([]time.Duration, total)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	next := make(chan int, total)
	for i := 0; i < total; i++ {
		next <- i
	}
	close(next)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				start := time.Now()
				if err := op(); err != nil {
					errs <- err
					return
				}
				durations[i] = time.Since(start)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
	slices.Sort(durations)
	return durations
}

// percentile returns the p-th percentile (0–100) of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted)-1) * p / 100)
	return sorted[i]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
