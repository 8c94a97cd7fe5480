package proxy_test

import (
	"time"

	"github.com/agent-deck/agent-deck/proxy"
)

// proxyOptions are the knobs tests change, with fast defaults.
type proxyOptions struct {
	idle       time.Duration
	connect    time.Duration
	maxResult  int
	backoffMin time.Duration
}

func (o proxyOptions) opts() proxy.Options {
	return proxy.Options{
		IdleTimeout:    o.idle,
		ConnectTimeout: o.connect,
		MaxResultBytes: o.maxResult,
		RestartBackoff: proxy.Backoff{Min: o.backoffMin, Max: 4 * o.backoffMin},
	}
}
