package proxy

import (
	"os"
	"path/filepath"
	"sort"
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

// capResults deletes the oldest spilled results until the folder fits ResultDirCap, so a
// stream of large results cannot fill the disk. keep, the file just written, is never deleted:
// the folder exceeds the cap by at most that one result.
func (p *Proxy) capResults(keep string) {
	p.spillMu.Lock()
	defer p.spillMu.Unlock()
	entries, err := os.ReadDir(p.resultsDir())
	if err != nil {
		return
	}
	type file struct {
		name string
		size int64
		mod  time.Time
	}
	var files []file
	var total int64
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		files = append(files, file{e.Name(), info.Size(), info.ModTime()})
		total += info.Size()
	}
	if total <= p.opts.ResultDirCap {
		return
	}
	sort.Slice(files, func(i, j int) bool {
		if !files[i].mod.Equal(files[j].mod) {
			return files[i].mod.Before(files[j].mod)
		}
		return files[i].name < files[j].name
	})
	removed := 0
	for _, f := range files {
		if total <= p.opts.ResultDirCap {
			break
		}
		if f.name == keep {
			continue
		}
		if os.Remove(filepath.Join(p.resultsDir(), f.name)) == nil {
			total -= f.size
			removed++
		}
	}
	p.log.Info("deleted the oldest spilled tool results over the folder cap", "files", removed, "cap_bytes", p.opts.ResultDirCap)
}
