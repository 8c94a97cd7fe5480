package main

import (
	"os"
	"strings"
	"testing"
)

// testdata/bench.json is real `go test -json -bench` output of two packages: a REST snapshot
// that misses its p99 target, a status line that holds its target, and component benchmarks and
// metrics with no target. One of its result lines arrives split over two output events.
func TestTableFromCapturedRun(t *testing.T) {
	in, err := os.Open("testdata/bench.json")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var echo, out strings.Builder
	s, err := read(in, &echo)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(echo.String(), "BenchmarkStatuslineServerDown/binary-2") {
		t.Errorf("raw output not echoed:\n%s", echo.String())
	}
	misses := write(&out, s)
	table := out.String()
	t.Log(table)
	for _, tc := range []struct {
		name, line string
	}{
		{"miss", "dashboard-api BenchmarkDeckSnapshot/rest/clients=16-2 p99-ms  6.852  ≤ 5     MISS    1"},
		{"hold", "tests BenchmarkStatuslineServerDown/binary-2 ms/op            29.48  ≤ 50    yes     1"},
		{"count", "1 of 2 targets missed\n"},
	} {
		if !strings.Contains(table, tc.line) {
			t.Errorf("%s: table lacks %q", tc.name, tc.line)
		}
	}
	for _, absent := range []string{"calls/s", "p50-ms", "component-", "-max"} {
		if strings.Contains(table, absent) {
			t.Errorf("table has a row for %q, which has no target", absent)
		}
	}
	if misses != 1 || len(s.failed) != 0 {
		t.Errorf("misses = %d, failed = %v; want 1 miss, no failure", misses, s.failed)
	}
}

func TestRows(t *testing.T) {
	for _, tc := range []struct {
		name  string
		line  string
		holds []bool
	}{
		{"higher is better, held", "BenchmarkX-2 \t 10\t 5 ns/op\t 0.8 x-of-direct\t 0.7 x-of-direct-min", []bool{true}},
		{"higher is better, missed", "BenchmarkX-2 \t 10\t 5 ns/op\t 0.4 x-of-direct\t 0.7 x-of-direct-min", []bool{false}},
		{"equal to a maximum holds", "BenchmarkX-2 \t 10\t 5 ns/op\t 2 s/op\t 2 s/op-max", []bool{true}},
		{"target without its value is a miss", "BenchmarkX-2 \t 10\t 5 ns/op\t 64 KB/session-max", []bool{false}},
		{"no target, no row", "BenchmarkX-2 \t 10\t 5 ns/op\t 3 p50-ms", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := parseResult("p", tc.line)
			if !ok {
				t.Fatalf("not parsed: %q", tc.line)
			}
			rs := rows([]result{r})
			if len(rs) != len(tc.holds) {
				t.Fatalf("%d rows, want %d", len(rs), len(tc.holds))
			}
			for i, want := range tc.holds {
				if rs[i].holds() != want {
					t.Errorf("row %+v holds = %v, want %v", rs[i], !want, want)
				}
			}
		})
	}
}

// TestMedianOfRuns: with go test -count, each metric is the median of its runs.
func TestMedianOfRuns(t *testing.T) {
	var results []result
	for _, line := range []string{
		"BenchmarkX-2 \t 10\t 5 ns/op\t 9 p99-ms\t 5 p99-ms-max",
		"BenchmarkX-2 \t 10\t 5 ns/op\t 4 p99-ms\t 5 p99-ms-max",
		"BenchmarkX-2 \t 10\t 5 ns/op\t 3 p99-ms\t 5 p99-ms-max",
	} {
		r, _ := parseResult("p", line)
		results = append(results, r)
	}
	rs := rows(results)
	if len(rs) != 1 || rs[0].value != 4 || rs[0].runs != 3 || !rs[0].holds() {
		t.Errorf("rows = %+v, want one row holding with the median 4 of 3 runs", rs)
	}
	if m := median([]float64{1, 4, 2, 3}); m != 2.5 {
		t.Errorf("median of an even count = %v, want 2.5", m)
	}
}

func TestFailuresAreCounted(t *testing.T) {
	in := `{"Action":"output","Package":"m/p","Test":"BenchmarkY","Output":"    y_test.go:9: boom\n"}
{"Action":"fail","Package":"m/p","Test":"BenchmarkY"}
{"Action":"fail","Package":"m/p"}
`
	s, err := read(strings.NewReader(in), &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	write(&out, s)
	if want := "0 of 0 targets missed; 2 failed: m/p BenchmarkY, m/p"; !strings.Contains(out.String(), want) {
		t.Errorf("got %q, want it to contain %q", out.String(), want)
	}
	if _, err := read(strings.NewReader("not json"), &strings.Builder{}); err == nil {
		t.Error("garbage input: no error")
	}
}
