package proxy

import (
	"os"
	"path/filepath"
	"time"
)

// resultsDir is where results over the size cap are written.
func (p *Proxy) resultsDir() string { return filepath.Join(p.opts.Home, "tool-results") }

// pruneResults deletes spilled result files older than the retention. Agents read a spilled
// result soon after the call that produced it; nothing else refers to the files.
func (p *Proxy) pruneResults(now time.Time) {
	entries, err := os.ReadDir(p.resultsDir())
	if err != nil {
		return // no results spilled yet
	}
	removed := 0
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || now.Sub(info.ModTime()) < p.opts.ResultRetention {
			continue
		}
		if os.Remove(filepath.Join(p.resultsDir(), e.Name())) == nil {
			removed++
		}
	}
	if removed > 0 {
		p.log.Info("deleted old spilled tool results", "files", removed, "retention", p.opts.ResultRetention)
	}
}
