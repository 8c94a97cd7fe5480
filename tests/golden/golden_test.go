package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a test that keeps its failures instead of failing.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

func (r *recorder) Fatal(args ...any) { r.failures = append(r.failures, fmt.Sprint(args...)) }

func withUpdate(t *testing.T, on bool) {
	was := *update
	*update = on
	t.Cleanup(func() { *update = was })
}

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out", "a.golden")
	cases := []struct {
		name   string
		update bool
		got    string
		fails  string // a part of the failure, "" for none
		file   string // the file afterwards
	}{
		{"missing file", false, "one\n", "-update", ""},
		{"update creates the file", true, "one\n", "", "one\n"},
		{"same content", false, "one\n", "", "one\n"},
		{"different content", false, "two\n", "-golden +now", "one\n"},
		{"update rewrites the file", true, "two\n", "", "two\n"},
	}
	for _, tc := range cases {
		withUpdate(t, tc.update)
		r := &recorder{TB: t}
		Check(r, path, []byte(tc.got))
		if failed := strings.Join(r.failures, "\n"); (tc.fails == "") != (failed == "") || !strings.Contains(failed, tc.fails) {
			t.Errorf("%s: failures %q, want one containing %q", tc.name, failed, tc.fails)
		}
		if b, _ := os.ReadFile(path); string(b) != tc.file {
			t.Errorf("%s: file holds %q, want %q", tc.name, b, tc.file)
		}
	}
}

func TestCheckOptional(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.golden")
	cases := []struct {
		name   string
		update bool
		got    string
		fails  bool
		exists bool
	}{
		{"no file is an empty result", false, "", false, false},
		{"no file is not a result", false, "x\n", true, false},
		{"update writes a result", true, "x\n", false, true},
		{"the file is the result", false, "x\n", false, true},
		{"update removes the file of an empty result", true, "", false, false},
	}
	for _, tc := range cases {
		withUpdate(t, tc.update)
		r := &recorder{TB: t}
		CheckOptional(r, path, []byte(tc.got))
		if (len(r.failures) > 0) != tc.fails {
			t.Errorf("%s: failures %q, want failing %v", tc.name, r.failures, tc.fails)
		}
		if _, err := os.Stat(path); (err == nil) != tc.exists {
			t.Errorf("%s: file exists = %v, want %v", tc.name, err == nil, tc.exists)
		}
	}
}
