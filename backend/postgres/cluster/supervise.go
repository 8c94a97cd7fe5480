package cluster

import (
	"context"
	"time"
)

// Supervision timings: how often the postmaster is looked at, and the bounds of the backoff
// between restart attempts (a restart can fail while the dead server's children still hold its
// shared memory; they leave within seconds).
const (
	superviseEvery    = 500 * time.Millisecond
	restartBackoffMin = 250 * time.Millisecond
	restartBackoffMax = 15 * time.Second
	restartTimeout    = 90 * time.Second
)

// supervise restarts the server whenever its postmaster dies while the cluster is not stopped
// (killed by hand, by the OOM killer, crashed). The postmaster is not this process's child
// (pg_ctl starts it detached), so it is watched by pid. It runs until Stop closes supStop.
func (c *Cluster) supervise() {
	defer close(c.supDone)
	tick := time.NewTicker(superviseEvery)
	defer tick.Stop()
	for {
		select {
		case <-c.supStop:
			return
		case <-tick.C:
		}
		if pid, up := c.running(); !up {
			c.log.Error("postgres exited unexpectedly; restarting it", "pid", pid, "data_dir", c.opts.DataDir)
			c.restart()
		}
	}
}

// running reports whether the postmaster this cluster started still runs.
func (c *Cluster) running() (pid int, up bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return c.pid, true
	}
	return c.pid, c.pid > 0 && alive(c.pid)
}

// restart starts the server again, retrying with a doubling backoff until it runs or Stop is
// called. Each attempt is logged.
func (c *Cluster) restart() {
	backoff := restartBackoffMin
	for attempt := 1; ; attempt++ {
		err := c.restartOnce()
		if err == nil {
			c.log.Warn("postgres restarted", "attempt", attempt, "pid", c.PID(), "data_dir", c.opts.DataDir)
			return
		}
		c.log.Warn("postgres restart failed; retrying", "attempt", attempt, "retry_in", backoff, "err", err)
		select {
		case <-c.supStop:
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, restartBackoffMax)
	}
}

func (c *Cluster) restartOnce() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return nil
	}
	c.stopWatchdog()
	ctx, cancel := context.WithTimeout(context.Background(), restartTimeout)
	defer cancel()
	c.pid = 0
	return c.launch(ctx)
}
