// Command benchtable reads `go test -json` output of benchmarks on stdin, echoes the ordinary
// test output (without the "=== RUN" lines -json adds), and ends with a table of every benchmark metric that has a target: measure, value,
// target, and whether it holds, plus a line counting the misses.
//
// A benchmark states a target by reporting, beside a metric "U", a metric "U-max" (U must be at
// most the target: lower is better) or "U-min" (U must be at least the target: higher is better),
// e.g. b.ReportMetric(p99, "p99-ms") and b.ReportMetric(5, "p99-ms-max"). Metrics without such a
// companion have no target and get no row. A benchmark run several times (go test -count) gets
// one row with the median of its runs, since single runs on a shared machine are noisy.
//
// After the targets it prints the growth curves (curves.go): for the benchmarks listed there,
// one markdown table each with a row per sub-benchmark "<param>=<value>" and a column per
// metric. With -readme FILE it also writes the targets (as a count, the misses with their values,
// and a table) and the curves into FILE between the lines "<!-- bench:start -->" and
// "<!-- bench:end -->" (make bench-readme does so for README.md), but only when the run holds
// every curve and has targets, so a partial run leaves the file as it was.
//
// A missed target is reported, not an error: the exit status is 0 unless a benchmark or a package
// failed (a build error, b.Fatal, a panic), since then the table is incomplete, or the README
// could not be written.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// metric is one "value unit" pair of a benchmark result line.
type metric struct {
	value float64
	unit  string
}

// result is one benchmark result line.
type result struct {
	pkg, name string
	metrics   []metric
}

// row is one line of the targets table.
type row struct {
	measure       string
	value, target float64
	dir           string // "max" or "min"
	hasValue      bool
	runs          int // how many runs the value is the median of
}

func (r row) holds() bool {
	if !r.hasValue {
		return false
	}
	if r.dir == "max" {
		return r.value <= r.target
	}
	return r.value >= r.target
}

// summary is what a run of benchmarks produced.
type summary struct {
	results []result
	failed  []string // packages and benchmarks that failed
	cpu     string   // the CPU go test names ("cpu: …"), if any
}

// read consumes the event stream, writing every output line to echo as it comes.
func read(in io.Reader, echo io.Writer) (summary, error) {
	var s summary
	pending := map[string]string{} // partial output lines per package and test
	dec := json.NewDecoder(in)
	for {
		var e event
		if err := dec.Decode(&e); err == io.EOF {
			break
		} else if err != nil {
			return s, fmt.Errorf("reading go test -json output: %w", err)
		}
		switch e.Action {
		case "output":
			if !strings.HasPrefix(e.Output, "=== ") { // -json implies -v; keep the usual bench output
				fmt.Fprint(echo, e.Output)
			}
			key := e.Package + "\x00" + e.Test
			text := pending[key] + e.Output
			for {
				line, rest, ok := strings.Cut(text, "\n")
				if !ok {
					break
				}
				if r, ok := parseResult(e.Package, line); ok {
					s.results = append(s.results, r)
				} else if cpu, ok := strings.CutPrefix(line, "cpu: "); ok && s.cpu == "" {
					s.cpu = strings.TrimSpace(cpu)
				}
				text = rest
			}
			pending[key] = text
		case "fail":
			name := e.Package
			if e.Test != "" {
				name += " " + e.Test
			}
			s.failed = append(s.failed, name)
		}
	}
	return s, nil
}

// parseResult parses a benchmark result line such as
// "BenchmarkX/sub-2 \t 50\t 5602 ns/op\t 3.7 p50-ms\t 5 p50-ms-max".
func parseResult(pkg, line string) (result, bool) {
	fields := strings.Split(line, "\t")
	name := strings.TrimSpace(fields[0])
	if !strings.HasPrefix(name, "Benchmark") || len(fields) < 3 {
		return result{}, false
	}
	if _, err := strconv.Atoi(strings.TrimSpace(fields[1])); err != nil {
		return result{}, false
	}
	r := result{pkg: pkg, name: name}
	for _, f := range fields[2:] {
		v, unit, ok := strings.Cut(strings.TrimSpace(f), " ")
		if !ok {
			continue
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			continue
		}
		r.metrics = append(r.metrics, metric{value: x, unit: strings.TrimSpace(unit)})
	}
	return r, true
}

// rows pairs each target metric with the metric it bounds. A benchmark run several times
// (-count) gives one row whose value is the median of its runs, against the last target.
func rows(results []result) []row {
	var out []row
	index := map[string]int{}
	runs := map[string][]float64{}
	for _, r := range results {
		values := map[string]float64{}
		for _, m := range r.metrics {
			values[m.unit] = m.value
		}
		for _, m := range r.metrics {
			for _, dir := range []string{"max", "min"} {
				unit, ok := strings.CutSuffix(m.unit, "-"+dir)
				if !ok {
					continue
				}
				measure := shortPkg(r.pkg) + " " + r.name + " " + unit
				i, seen := index[measure]
				if !seen {
					i = len(out)
					index[measure] = i
					out = append(out, row{measure: measure})
				}
				out[i].target, out[i].dir = m.value, dir
				if v, has := values[unit]; has {
					runs[measure] = append(runs[measure], v)
				}
			}
		}
	}
	for i := range out {
		if vs := runs[out[i].measure]; len(vs) > 0 {
			out[i].value, out[i].hasValue, out[i].runs = median(vs), true, len(vs)
		}
	}
	return out
}

// median returns the middle value (the mean of the two middle ones for an even count).
func median(vs []float64) float64 {
	vs = slices.Clone(vs)
	slices.Sort(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}

// shortPkg drops the module path, leaving the package's directory.
func shortPkg(pkg string) string {
	const module = "github.com/agent-deck/agent-deck"
	if rest, ok := strings.CutPrefix(pkg, module+"/"); ok {
		return rest
	}
	return strings.TrimPrefix(pkg, module)
}

// write prints the table and the closing count; it returns the number of misses.
func write(out io.Writer, s summary) int {
	rs := rows(s.results)
	fmt.Fprintln(out, "\nTargets")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "measure\tvalue\ttarget\tholds?\truns")
	misses := 0
	for _, r := range rs {
		value, verdict := "none", "MISS"
		if r.hasValue {
			value = strconv.FormatFloat(r.value, 'g', 4, 64)
		}
		if r.holds() {
			verdict = "yes"
		} else {
			misses++
		}
		op := "≤"
		if r.dir == "min" {
			op = "≥"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s %s\t%s\t%d\n", r.measure, value, op, strconv.FormatFloat(r.target, 'g', 4, 64),
			verdict, r.runs)
	}
	tw.Flush()
	fmt.Fprintf(out, "%d of %d targets missed", misses, len(rs))
	if len(s.failed) > 0 {
		fmt.Fprintf(out, "; %d failed: %s", len(s.failed), strings.Join(s.failed, ", "))
	}
	fmt.Fprintln(out)
	return misses
}

func main() {
	readme := flag.String("readme", "", "also write the run's figures (targets and growth curves) into this file, between its "+
		curvesStart+" and "+curvesEnd+" lines (only when the run has every curve and its targets)")
	flag.Parse()
	s, err := read(os.Stdin, os.Stdout)
	write(os.Stdout, s)
	writeCurves(os.Stdout, s)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	if len(s.failed) > 0 {
		os.Exit(1)
	}
	if *readme != "" {
		if err := writeReadme(*readme, s); err != nil {
			fmt.Fprintln(os.Stderr, "benchtable:", err)
			os.Exit(1)
		}
		fmt.Printf("\nwrote the targets and growth curves into %s\n", *readme)
	}
}
