package main

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// curve is one growth table: the sub-benchmarks "<param>=<value>" of one benchmark, a row per
// value (in numeric order), a column per metric (the median of the runs of that point).
type curve struct {
	title  string
	bench  string // the benchmark's name, without sub-benchmark or -GOMAXPROCS suffix
	param  string // the sub-benchmark parameter: "cards" of "cards=100"
	xLabel string
	cols   []column
}

type column struct{ unit, label string }

// curves are the growth curves of the README's performance section, in its order.
var curves = []curve{
	{title: "Deck snapshot (`get_bound_deck`, first page) by deck size", bench: "BenchmarkSnapshotSize",
		param: "cards", xLabel: "cards in the deck", cols: []column{
			{"bytes", "bytes"}, {"o200k-tokens", "o200k tokens"}, {"budget-tokens", "budget (tokens)"}}},
	{title: "Proxied call (`call_service_tool`, Go client, real server) by concurrent sessions",
		bench: "BenchmarkGrowthCallSessions", param: "sessions", xLabel: "concurrent sessions", cols: []column{
			{"p50-ms", "p50 (ms)"}, {"p99-ms", "p99 (ms)"}, {"calls/s", "calls/s"},
			{"hub-cpu-ms/call", "hub CPU per call (ms)"}, {"hub+pg-cpu-ms/call", "with PostgreSQL's share (ms)"}}},
	{title: "Server memory (RSS of the real process) by idle bound sessions",
		bench: "BenchmarkGrowthIdleSessionRSS", param: "sessions", xLabel: "idle sessions", cols: []column{
			{"server-rss-MiB", "RSS (MiB)"}, {"KB/session", "growth per session (KB)"}}},
	{title: "Opening a session (initialize over HTTP) by live sessions of other tokens", bench: "BenchmarkOpenSession",
		param: "live", xLabel: "live sessions", cols: []column{
			{"p50-µs", "p50 (µs)"}, {"x-of-live0", "× of 0 live"}}},
	{title: "Opening a session (initialize over HTTP) by live sessions of the same token", bench: "BenchmarkOpenSessionOneToken",
		param: "live", xLabel: "live sessions", cols: []column{
			{"p50-µs", "p50 (µs)"}, {"x-of-live0", "× of 0 live"}}},
}

// point is one row of a curve: its parameter value and the runs of each metric.
type point struct {
	x    string
	runs map[string][]float64
}

// points gathers the results of c's benchmark, a point per parameter value in numeric order.
func (c curve) points(results []result) []point {
	var out []point
	for _, r := range results {
		name, sub, ok := strings.Cut(trimProcs(r.name), "/")
		if !ok || name != c.bench {
			continue
		}
		x, ok := strings.CutPrefix(sub, c.param+"=")
		if !ok {
			continue
		}
		i := slices.IndexFunc(out, func(p point) bool { return p.x == x })
		if i < 0 {
			i = len(out)
			out = append(out, point{x: x, runs: map[string][]float64{}})
		}
		for _, m := range r.metrics {
			out[i].runs[m.unit] = append(out[i].runs[m.unit], m.value)
		}
	}
	slices.SortStableFunc(out, func(a, b point) int {
		fa, errA := strconv.ParseFloat(a.x, 64)
		fb, errB := strconv.ParseFloat(b.x, 64)
		if errA != nil || errB != nil {
			return strings.Compare(a.x, b.x)
		}
		return cmp.Compare(fa, fb)
	})
	return out
}

// trimProcs drops the "-N" GOMAXPROCS suffix go test adds to a benchmark's name.
func trimProcs(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return name
	}
	if _, err := strconv.Atoi(name[i+1:]); err != nil {
		return name
	}
	return name[:i]
}

// writeCurves prints every curve that has points as a markdown table, preceded by a line naming
// the machine; it returns the titles of the curves without any point.
func writeCurves(out io.Writer, s summary) (missing []string) {
	var body strings.Builder
	for _, c := range curves {
		ps := c.points(s.results)
		if len(ps) == 0 {
			missing = append(missing, c.bench)
			continue
		}
		fmt.Fprintf(&body, "\n**%s**\n\n| %s |", c.title, c.xLabel)
		for _, col := range c.cols {
			fmt.Fprintf(&body, " %s |", col.label)
		}
		body.WriteString("\n|---:|" + strings.Repeat("---:|", len(c.cols)) + "\n")
		for _, p := range ps {
			fmt.Fprintf(&body, "| %s |", formatX(p.x))
			for _, col := range c.cols {
				v := "—"
				if vs := p.runs[col.unit]; len(vs) > 0 {
					v = formatValue(median(vs))
				}
				fmt.Fprintf(&body, " %s |", v)
			}
			body.WriteString("\n")
		}
	}
	if body.Len() == 0 {
		return missing
	}
	fmt.Fprintf(out, "\nGrowth curves\n\n%s\n%s", machine(s), body.String())
	return missing
}

// machine says where and how the figures were measured.
func machine(s summary) string {
	cpu := s.cpu
	if cpu == "" {
		cpu = "an unnamed CPU"
	}
	runs := 0
	for _, c := range curves {
		for _, p := range c.points(s.results) {
			for _, vs := range p.runs {
				runs = max(runs, len(vs))
			}
		}
	}
	return fmt.Sprintf("Measured on %s, %d cores (%s/%s); each value is the median of %d run(s).",
		cpu, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runs)
}

// formatX writes a parameter value with thousands separators when it is a whole number.
func formatX(x string) string {
	n, err := strconv.Atoi(x)
	if err != nil {
		return x
	}
	return thousands(n)
}

// formatValue keeps three significant digits below 100 and whole numbers above, without
// exponents, so the tables read at a glance.
func formatValue(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return thousands(int(math.Round(v)))
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// The README's performance section holds every figure of one run between these markers: the
// targets table, the sentences that count what held and name what did not, and the curves.
const (
	curvesStart = "<!-- bench:start -->"
	curvesEnd   = "<!-- bench:end -->"
)

// writeTargetsMarkdown writes the targets table of s as markdown, after a sentence that counts
// what held, and one line for each target that did not, with its value and target.
func writeTargetsMarkdown(out io.Writer, s summary) {
	rs := rows(s.results)
	held := 0
	for _, r := range rs {
		if r.holds() {
			held++
		}
	}
	fmt.Fprintf(out, "\nIn this run %d of the %d targets of `make bench` held.", held, len(rs))
	var missed []string
	for _, r := range rs {
		if !r.holds() {
			missed = append(missed, fmt.Sprintf("`%s` was %s against a target of %s", readableMeasure(r.measure), markdownValue(r),
				target(r)))
		}
	}
	if len(missed) > 0 {
		fmt.Fprintf(out, " Missed: %s.", strings.Join(missed, "; "))
	}
	fmt.Fprint(out, "\n\n| measure | value | target | holds |\n|---|---:|---:|:---:|\n")
	for _, r := range rs {
		verdict := "no"
		if r.holds() {
			verdict = "yes"
		}
		fmt.Fprintf(out, "| `%s` | %s | %s | %s |\n", readableMeasure(r.measure), markdownValue(r), target(r), verdict)
	}
}

// readableMeasure drops the GOMAXPROCS suffix from the benchmark name in a measure
// ("tests BenchmarkX/sub-2 p50-ms" reads "tests BenchmarkX/sub p50-ms").
func readableMeasure(m string) string {
	fields := strings.Fields(m)
	if len(fields) == 3 {
		fields[1] = trimProcs(fields[1])
	}
	return strings.Join(fields, " ")
}

func markdownValue(r row) string {
	if !r.hasValue {
		return "none"
	}
	return formatValue(r.value)
}

func target(r row) string {
	if r.dir == "min" {
		return "≥ " + formatValue(r.target)
	}
	return "≤ " + formatValue(r.target)
}

// writeReadme replaces what lies between the markers of the file at path with the figures of s.
// It changes nothing unless every curve has points, the run has targets, and the markers are
// there once each, in order, so a partial run never leaves a half-updated section.
func writeReadme(path string, s summary) error {
	var curvesText strings.Builder
	if missing := writeCurves(&curvesText, s); len(missing) > 0 {
		return fmt.Errorf("%s left unchanged: no results of %s in this run (run them with make bench-readme)",
			path, strings.Join(missing, ", "))
	}
	if len(rows(s.results)) == 0 {
		return fmt.Errorf("%s left unchanged: no targets in this run (run make bench-readme)", path)
	}
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if bytes.Count(old, []byte(curvesStart)) != 1 || bytes.Count(old, []byte(curvesEnd)) != 1 {
		return fmt.Errorf("%s left unchanged: want one %q line and one %q line", path, curvesStart, curvesEnd)
	}
	head, rest, _ := bytes.Cut(old, []byte(curvesStart))
	_, tail, found := bytes.Cut(rest, []byte(curvesEnd))
	if !found {
		return fmt.Errorf("%s left unchanged: %q comes before %q", path, curvesEnd, curvesStart)
	}
	curvesBody := strings.TrimPrefix(curvesText.String(), "\nGrowth curves\n\n")
	machineLine, curvesOnly, _ := strings.Cut(curvesBody, "\n")
	var targets strings.Builder
	writeTargetsMarkdown(&targets, s)
	text := "\n" + machineLine + "\n" + targets.String() + curvesOnly
	var next bytes.Buffer
	next.Write(head)
	next.WriteString(curvesStart + "\n" + text + "\n" + curvesEnd)
	next.Write(tail)
	tmp, err := os.CreateTemp(filepath.Dir(path), ".readme-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(next.Bytes()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), info.Mode().Perm()); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
