package proxy

import (
	"context"
	"errors"
	"sync"
	"testing"
)

// TestBudgetBoundAndProgress: many readers take whole messages in small reads at once, holding
// each message until they are done with it. Every one finishes (the privileged reader never
// waits, so waiting readers cannot deadlock), and the charge never passes the limit.
func TestBudgetBoundAndProgress(t *testing.T) {
	const hardCap, chunk, readers = 1000, 64, 24
	b := newBudget(MinResultMemory(hardCap), hardCap)
	var peak int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range readers {
		wg.Go(func() {
			tk := b.ticket()
			defer tk.release()
			size := hardCap - i*17 // messages of many sizes, up to the hard cap
			for read := 0; read < size; read += chunk {
				if err := tk.take(context.Background(), min(chunk, size-read)); err != nil {
					t.Error(err)
					return
				}
				b.mu.Lock()
				used := b.used
				b.mu.Unlock()
				mu.Lock()
				peak = max(peak, used)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if peak > b.limit {
		t.Errorf("the charge reached %d, over the limit %d", peak, b.limit)
	}
	if b.used != 0 || b.priv != nil {
		t.Errorf("after every release: used %d, privileged %v", b.used, b.priv)
	}
}

// TestBudgetWaitEnds: a reader with no room waits until its context ends, and says why; once
// the privileged reader is done the next reader gets in; a released ticket charges nothing more.
func TestBudgetWaitEnds(t *testing.T) {
	const hardCap = 1000
	b := newBudget(MinResultMemory(hardCap), hardCap)
	first, second := b.ticket(), b.ticket()
	if err := first.take(context.Background(), hardCap); err != nil {
		t.Fatal(err)
	}
	if err := second.take(context.Background(), hardCap); err != nil { // the privileged one
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	third := b.ticket()
	if err := third.take(ctx, 1); !errors.Is(err, errResultMemoryFull) || !errors.Is(err, context.Canceled) {
		t.Fatalf("a read with no room: %v, want errResultMemoryFull and the context's cause", err)
	}
	second.release() // the privileged one is done: the waiting reader may become it
	if err := third.take(context.Background(), 10); err != nil {
		t.Fatal(err)
	}
	first.release()
	third.release()
	if err := third.take(context.Background(), hardCap); err != nil || b.used != 0 {
		t.Fatalf("a released ticket: %v, used %d", err, b.used)
	}
}

// TestBudgetHandOver: a stdio reader hands each line to the call it answers. The privilege goes
// with the line, so the reader cannot take another whole line while the call still holds the
// first: the charge stays under the limit however fast lines arrive.
func TestBudgetHandOver(t *testing.T) {
	const hardCap = 1000
	b := newBudget(MinResultMemory(hardCap), hardCap)
	reader, calls := b.ticket(), []*ticket{b.ticket(), b.ticket(), b.ticket()}
	took := make(chan int, len(calls))
	go func() {
		for i, c := range calls {
			for read := 0; read < hardCap; read += 100 {
				if err := reader.take(context.Background(), 100); err != nil {
					t.Error(err)
					return
				}
			}
			reader.handOver(c, hardCap)
			took <- i
		}
	}()
	<-took // two whole lines fit (one in the share, one privileged) ...
	<-took
	select {
	case i := <-took: // ... a third only once a call is done with its line
		t.Fatalf("line %d was read while two calls held whole lines (used %d of %d)", i, b.used, b.limit)
	default:
	}
	if b.used > b.limit {
		t.Fatalf("used %d, over the limit %d", b.used, b.limit)
	}
	calls[0].release()
	calls[1].release()
	<-took
	calls[2].release()
	if b.used != 0 || b.priv != nil {
		t.Errorf("after every release: used %d, privileged %v", b.used, b.priv)
	}
}
