package tests

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/agent-deck/agent-deck"

type goPackage struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// listPackages runs `go list -deps` over the module's non-test code.
func listPackages(t *testing.T) map[string]goPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", module+"/...")
	cmd.Dir = ".."
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list: %v\n%s", err, errb.String())
	}
	pkgs := map[string]goPackage{}
	dec := json.NewDecoder(&out)
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		pkgs[strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")] = p
	}
	return pkgs
}

func isStdlib(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// under reports whether pkg is dir or inside it.
func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

// storage is one adapter in two packages: the store and its migrations.
func sameAdapter(a, b string) bool {
	storage := func(p string) bool { return under(p, "backend/postgres") || under(p, "migrations") }
	return a == b || (storage(a) && storage(b))
}

// violations checks the architecture of STYLE.md: the core imports only the standard library,
// adapters never import each other, and each third-party protocol library stays in the adapter
// that owns it.
func violations(pkgs map[string]goPackage) []string {
	adapters := []string{"dashboard-api", "mcptools", "proxy", "harness", "backend/postgres", "migrations"}
	owners := map[string][]string{
		"github.com/mark3labs/mcp-go": {"mcptools", "proxy", "tests"},
		"github.com/gin-gonic/gin":    {"dashboard-api"},
		"github.com/jackc/pgx":        {"backend/postgres", "migrations"},
	}
	adapterOf := func(pkg string) string {
		for _, a := range adapters {
			if under(pkg, a) {
				return a
			}
		}
		return ""
	}
	var out []string
	for name, p := range pkgs {
		if name == "backend" {
			for _, d := range p.Deps {
				if !isStdlib(d) {
					out = append(out, "backend depends on "+d+"; the core may use only the standard library")
				}
			}
		}
		for _, imp := range p.Imports {
			target, ok := strings.CutPrefix(imp, module+"/")
			if ok {
				from, to := adapterOf(name), adapterOf(target)
				if from != "" && to != "" && !sameAdapter(from, to) {
					out = append(out, name+" imports "+target+": adapters must not import each other")
				}
				continue
			}
			for lib, allowed := range owners {
				if !strings.HasPrefix(imp, lib) {
					continue
				}
				permitted := false
				for _, a := range allowed {
					permitted = permitted || under(name, a)
				}
				if !permitted {
					out = append(out, name+" imports "+imp+"; only "+strings.Join(allowed, ", ")+" may")
				}
			}
		}
	}
	return out
}

func TestDependencyDirection(t *testing.T) {
	pkgs := listPackages(t)
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
	for _, want := range []string{"backend", "cli", "cmd/agent-deck"} {
		if _, ok := pkgs[want]; !ok {
			t.Errorf("package %s missing from go list output", want)
		}
	}
}

// TestDependencyRulesCatchViolations proves the checker fails on each kind of bad import.
func TestDependencyRulesCatchViolations(t *testing.T) {
	cases := map[string]goPackage{
		"backend":       {Deps: []string{"context", "github.com/jackc/pgx/v5"}},
		"dashboard-api": {Imports: []string{module + "/proxy"}},
		"mcptools":      {Imports: []string{"github.com/gin-gonic/gin"}},
		"harness":       {Imports: []string{"github.com/jackc/pgx/v5/pgxpool"}},
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			if got := violations(map[string]goPackage{name: p}); len(got) != 1 {
				t.Errorf("violations = %q, want exactly one", got)
			}
		})
	}
	ok := map[string]goPackage{
		"backend/postgres/pgtest": {Imports: []string{module + "/migrations", module + "/backend"}},
		"cli":                     {Imports: []string{module + "/proxy", module + "/mcptools"}},
	}
	if got := violations(ok); len(got) != 0 {
		t.Errorf("allowed imports reported: %q", got)
	}
}
