package proxy

// Events lets the composition root count what happens to downstream servers (metrics) without
// the proxy knowing how; a nil func counts nothing. Each receives the service's name.
type Events struct {
	// LocalStarted: a local server process was started.
	LocalStarted func(service string)
	// LocalCrashed: a local server exited without the proxy stopping it.
	LocalCrashed func(service string)
	// ResultSpilled: a result too large to return inline was written to a file.
	ResultSpilled func(service string)
	// ToolsChanged: a downstream announced notifications/tools/list_changed.
	ToolsChanged func(service string)
}

func (e Events) toolsChanged(service string) {
	if e.ToolsChanged != nil {
		e.ToolsChanged(service)
	}
}

func (e Events) localStarted(service string) {
	if e.LocalStarted != nil {
		e.LocalStarted(service)
	}
}

func (e Events) localCrashed(service string) {
	if e.LocalCrashed != nil {
		e.LocalCrashed(service)
	}
}

func (e Events) resultSpilled(service string) {
	if e.ResultSpilled != nil {
		e.ResultSpilled(service)
	}
}
