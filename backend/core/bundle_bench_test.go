package core_test

import (
	"testing"

	"github.com/agent-deck/agent-deck/backend/core"
)

// BenchmarkComponentImport1000 imports a 1,000-card bundle into an empty database in the core: a
// component figure with no end-to-end target (the user's path is tests.BenchmarkCLIImport).
func BenchmarkComponentImport1000(b *testing.B) {
	raw := bigBundle(1000)
	for b.Loop() {
		b.StopTimer()
		svc, ctx := newBundleCore(b)
		b.StartTimer()
		rep := need(svc.Import(ctx, raw, false))(b)
		if len(rep.Created["playbooks"]) != 333 {
			b.Fatalf("created %v", rep.Created)
		}
	}
}

// BenchmarkComponentExport1000 exports a collection of 1,000 cards in the core: a component
// figure with no end-to-end target (the user's path is tests.BenchmarkCLIExport1000).
func BenchmarkComponentExport1000(b *testing.B) {
	svc, ctx := newBundleCore(b)
	need(svc.Import(ctx, bigBundle(1000), false))(b)
	b.ResetTimer()
	for b.Loop() {
		need(svc.Export(ctx, core.ExportInput{}))(b)
	}
}
