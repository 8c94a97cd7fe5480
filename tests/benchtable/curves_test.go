package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// curvesRun is go test -json output holding every curve, out of numeric order, with -count=3
// on one point, a metric missing on another, and the machine's cpu line.
func curvesRun(t *testing.T, skip string) summary {
	t.Helper()
	lines := []string{
		"cpu: Test CPU 9000",
		"BenchmarkSnapshotSize/cards=100-2 \t 10\t 5 ns/op\t 18000 bytes\t 5000 o200k-tokens\t 6000 budget-tokens",
		"BenchmarkSnapshotSize/cards=10-2 \t 10\t 5 ns/op\t 1800 bytes\t 500 o200k-tokens\t 6000 budget-tokens",
		"BenchmarkSnapshotSize/cards=10000-2 \t 10\t 5 ns/op\t 21000 bytes\t 5900 o200k-tokens\t 6000 budget-tokens",
		"BenchmarkSnapshotSize/cards=1000-2 \t 10\t 5 ns/op\t 20000 bytes\t 5800 o200k-tokens",
		"BenchmarkGrowthCallSessions/sessions=1-2 \t 10\t 5 ns/op\t 1000 calls/s\t 0.5323 hub-cpu-ms/call\t 0.82 p50-ms\t 3.469 p99-ms",
		"BenchmarkGrowthCallSessions/sessions=16-2 \t 10\t 5 ns/op\t 1811 calls/s\t 0.2858 hub-cpu-ms/call\t 7.084 p50-ms\t 38.47 p99-ms",
		"BenchmarkGrowthCallSessions/sessions=16-2 \t 10\t 5 ns/op\t 1500 calls/s\t 0.3 hub-cpu-ms/call\t 9 p50-ms\t 40 p99-ms",
		"BenchmarkGrowthCallSessions/sessions=16-2 \t 10\t 5 ns/op\t 1900 calls/s\t 0.1 hub-cpu-ms/call\t 2 p50-ms\t 30 p99-ms",
		"BenchmarkGrowthCallSessions/sessions=100-2 \t 1\t 5 ns/op\t 464 calls/s\t 0.5 hub-cpu-ms/call\t 198.7 p50-ms\t 713.7 p99-ms",
		"BenchmarkGrowthIdleSessionRSS/sessions=1000-2 \t 10\t 5 ns/op\t 18.94 KB/session\t 52.3 server-rss-MiB",
		"BenchmarkGrowthIdleSessionRSS/sessions=10000-2 \t 10\t 5 ns/op\t 17.99 KB/session\t 209.5 server-rss-MiB",
		"BenchmarkOpenSession/live=0-2 \t 100\t 5 ns/op\t 1246 p50-µs",
		"BenchmarkOpenSession/live=1000-2 \t 100\t 5 ns/op\t 1434 p50-µs\t 1.151 x-of-live0",
		"BenchmarkOpenSession/live=10000-2 \t 100\t 5 ns/op\t 1703 p50-µs\t 1.367 x-of-live0\t 1.5 x-of-live0-max",
		"BenchmarkOpenSessionOneToken/live=0-2 \t 100\t 5 ns/op\t 1300 p50-µs",
		"BenchmarkOpenSessionOneToken/live=10000-2 \t 100\t 5 ns/op\t 1500 p50-µs\t 1.154 x-of-live0\t 1.5 x-of-live0-max",
		"BenchmarkOther/cards=5-2 \t 10\t 5 ns/op\t 7 bytes",
	}
	var in strings.Builder
	for _, l := range lines {
		if skip != "" && strings.HasPrefix(l, skip) {
			continue
		}
		raw, _ := json.Marshal(event{Action: "output", Package: "github.com/agent-deck/agent-deck/tests", Output: l + "\n"})
		in.Write(raw)
		in.WriteByte('\n')
	}
	s, err := read(strings.NewReader(in.String()), &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCurves: one markdown table per curve, rows in numeric order, medians of the runs, a dash
// where a point lacks a metric, and the machine named.
func TestCurves(t *testing.T) {
	var out strings.Builder
	if missing := writeCurves(&out, curvesRun(t, "")); len(missing) != 0 {
		t.Errorf("missing curves %v", missing)
	}
	text := out.String()
	t.Log(text)
	for _, tc := range []struct{ name, want string }{
		{"machine", "Measured on Test CPU 9000, "},
		{"runs", "median of 3 run(s)"},
		{"header", "| cards in the deck | bytes | o200k tokens | budget (tokens) |\n|---:|---:|---:|---:|\n"},
		{"numeric order and separators", "| 10 | 1,800 | 500 | 6,000 |\n| 100 | 18,000 | 5,000 | 6,000 |\n" +
			"| 1,000 | 20,000 | 5,800 | — |\n| 10,000 | 21,000 | 5,900 | 6,000 |\n"},
		{"median of three runs", "| 16 | 7.08 | 38.5 | 1,811 | 0.286 | — |\n"},
		{"small values", "| 1 | 0.82 | 3.47 | 1,000 | 0.532 | — |\n"},
		{"rss", "| 10,000 | 210 | 18.0 |\n"},
		{"open session", "| 0 | 1,246 | — |\n| 1,000 | 1,434 | 1.15 |\n| 10,000 | 1,703 | 1.37 |\n"},
	} {
		if !strings.Contains(text, tc.want) {
			t.Errorf("%s: curves lack %q", tc.name, tc.want)
		}
	}
	if strings.Contains(text, "BenchmarkOther") || strings.Contains(text, "| 5 |") {
		t.Error("a benchmark that is no curve got a table")
	}
}

// TestCurvesIntoReadme: -readme replaces what lies between the markers, and only that, the same
// way every time; a run without every curve, or a file without the markers, leaves it untouched.
func TestCurvesIntoReadme(t *testing.T) {
	const before, after = "# Title\n\n## Performance\n\nProse.\n\n", "\n\n## Next\n\nMore prose.\n"
	full := curvesRun(t, "")
	for _, tc := range []struct {
		name, readme string
		s            summary
		wantErr      string
	}{
		{"empty section", before + curvesStart + "\n" + curvesEnd + after, full, ""},
		{"stale section", before + curvesStart + "\nold table\n| 1 | 2 |\n" + curvesEnd + after, full, ""},
		{"a curve missing", before + curvesStart + "\nold\n" + curvesEnd + after,
			curvesRun(t, "BenchmarkGrowthIdleSessionRSS"), "no results of BenchmarkGrowthIdleSessionRSS"},
		{"no markers", before + after, full, "want one"},
		{"markers twice", before + curvesStart + curvesEnd + curvesStart + curvesEnd + after, full, "want one"},
		{"end before start", before + curvesEnd + "\n" + curvesStart + after, full, "comes before"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "README.md")
			if err := os.WriteFile(path, []byte(tc.readme), 0o644); err != nil {
				t.Fatal(err)
			}
			err := writeReadme(path, tc.s)
			got, _ := os.ReadFile(path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("error %v, want one saying %q", err, tc.wantErr)
				}
				if string(got) != tc.readme {
					t.Errorf("the file changed although the write was refused:\n%s", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			text := string(got)
			if !strings.HasPrefix(text, before+curvesStart+"\n") || !strings.HasSuffix(text, curvesEnd+after) {
				t.Errorf("text outside the markers changed:\n%s", text)
			}
			if strings.Contains(text, "old table") || !strings.Contains(text, "| 10,000 | 21,000 | 5,900 | 6,000 |") {
				t.Errorf("section not replaced by the curves:\n%s", text)
			}
			for _, want := range []string{"Measured on Test CPU 9000",
				"In this run 2 of the 2 targets of `make bench` held.",
				"| `tests BenchmarkOpenSession/live=10000 x-of-live0` | 1.37 | ≤ 1.50 | yes |"} {
				if !strings.Contains(text, want) {
					t.Errorf("section lacks %q:\n%s", want, text)
				}
			}
			if err := writeReadme(path, tc.s); err != nil {
				t.Fatal(err)
			}
			if again, _ := os.ReadFile(path); string(again) != text {
				t.Errorf("a second write changed the file:\n%s\nthen\n%s", text, again)
			}
		})
	}
}

// TestReadmeNamesMisses: a target that did not hold is counted and named with its value and
// target in the generated sentence, and marked in the table.
func TestReadmeNamesMisses(t *testing.T) {
	s := curvesRun(t, "")
	s.results = append(s.results, result{pkg: "github.com/agent-deck/agent-deck/tests", name: "BenchmarkSlow-2",
		metrics: []metric{{value: 3, unit: "s/op"}, {value: 2, unit: "s/op-max"}}})
	var out strings.Builder
	writeTargetsMarkdown(&out, s)
	for _, want := range []string{"In this run 2 of the 3 targets of `make bench` held.",
		"Missed: `tests BenchmarkSlow s/op` was 3.00 against a target of ≤ 2.00.",
		"| `tests BenchmarkSlow s/op` | 3.00 | ≤ 2.00 | no |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("targets lack %q:\n%s", want, out.String())
		}
	}
}

func TestTrimProcs(t *testing.T) {
	for in, want := range map[string]string{
		"BenchmarkX/cards=10-2":  "BenchmarkX/cards=10",
		"BenchmarkX/cards=10":    "BenchmarkX/cards=10",
		"BenchmarkX/a-b-16":      "BenchmarkX/a-b",
		"BenchmarkX/component-x": "BenchmarkX/component-x",
	} {
		if got := trimProcs(in); got != want {
			t.Errorf("trimProcs(%q) = %q, want %q", in, got, want)
		}
	}
}
