package tests

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"slices"
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

// rooms says which of the module's packages each part of the backend may import: the ground
// floor none, its rooms the ground floor (the use cases also the bundle format and the sealer).
var rooms = map[string][]string{
	"backend":            {},
	"backend/secret":     {"backend"},
	"backend/audit":      {"backend"},
	"backend/bundle":     {"backend"},
	"backend/authserver": {"backend"},
	"backend/ratelimit":  {},
	"backend/core":       {"backend", "backend/bundle", "backend/secret", "backend/ratelimit"},
}

// backendLibraries are the small, well-kept libraries (no I/O, no protocol) the backend may use
// beside the standard library: they do what it would otherwise hand-write.
var backendLibraries = []string{"github.com/agnivade/levenshtein", "github.com/google/uuid", "golang.org/x/text",
	"golang.org/x/time/rate"}

// authserverUsers are the only packages that may import the OAuth authorization server.
var authserverUsers = []string{"cli", "dashboard-api", "tests"}

// violations checks the architecture of STYLE.md and docs/architecture.md: the backend uses
// only the standard library and its packages import only the rooms below them, adapters never
// import each other, and each third-party protocol library stays in the adapter that owns it.
func violations(pkgs map[string]goPackage) []string {
	adapters := []string{"dashboard-api", "mcptools", "proxy", "harness", "markdown", "backend/postgres", "migrations", "toolsearch"}
	owners := map[string][]string{
		"github.com/mark3labs/mcp-go":        {"mcptools", "proxy", "tests"},
		"github.com/gin-gonic/gin":           {"dashboard-api"},
		"github.com/jackc/pgx":               {"backend/postgres", "migrations"},
		"github.com/blevesearch":             {"toolsearch"},
		"github.com/yuin/goldmark":           {"markdown"},
		"github.com/microcosm-cc/bluemonday": {"markdown"},
		// Dashboard sign-in through an OpenID Connect provider is the REST adapter's.
		"github.com/coreos/go-oidc": {"dashboard-api"},
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
		allowed, isRoom := rooms[name]
		if isRoom {
			for _, d := range p.Deps {
				lib := slices.ContainsFunc(backendLibraries, func(l string) bool { return under(d, l) })
				if !isStdlib(d) && !strings.HasPrefix(d, module+"/") && !lib {
					out = append(out, name+" depends on "+d+"; the backend may use only the standard library and "+
						strings.Join(backendLibraries, ", "))
				}
			}
		}
		for _, imp := range p.Imports {
			target, ok := strings.CutPrefix(imp, module+"/")
			if ok && isRoom && !slices.Contains(allowed, target) {
				out = append(out, name+" imports "+target+"; it may import only "+orNothing(allowed))
				continue
			}
			if ok && target == "backend/authserver" && !slices.ContainsFunc(authserverUsers, func(u string) bool { return under(name, u) }) {
				out = append(out, name+" imports backend/authserver; only "+strings.Join(authserverUsers, ", ")+" may")
				continue
			}
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

func orNothing(list []string) string {
	if len(list) == 0 {
		return "the standard library"
	}
	return strings.Join(list, ", ")
}

func TestDependencyDirection(t *testing.T) {
	pkgs := listPackages(t)
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
	for _, want := range []string{"backend", "backend/core", "backend/secret", "backend/audit", "backend/bundle",
		"backend/authserver", "backend/ratelimit", "backend/postgres", "cli", "cmd/agent-deck"} {
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
		// The ground floor imports nothing of the backend above it.
		"backend ": {Imports: []string{module + "/backend/core"}},
		// The rooms import only the ground floor.
		"backend/secret": {Imports: []string{module + "/backend/core"}},
		"backend/bundle": {Imports: []string{module + "/backend/secret"}},
		"backend/audit":  {Imports: []string{module + "/backend/core"}},
		// The use cases do not reach up to the authorization server.
		"backend/core": {Imports: []string{module + "/backend/authserver"}},
		// Only the composition root and the REST API know the authorization server.
		"mcptools ": {Imports: []string{module + "/backend/authserver"}},
		"proxy":     {Imports: []string{module + "/backend/authserver"}},
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			if got := violations(map[string]goPackage{strings.TrimSpace(name): p}); len(got) != 1 {
				t.Errorf("violations = %q, want exactly one", got)
			}
		})
	}
	ok := map[string]goPackage{
		"backend/postgres/pgtest": {Imports: []string{module + "/migrations", module + "/backend"}},
		"cli":                     {Imports: []string{module + "/proxy", module + "/mcptools", module + "/backend/authserver"}},
		"backend/core":            {Imports: []string{module + "/backend", module + "/backend/bundle", module + "/backend/secret"}},
		"dashboard-api":           {Imports: []string{module + "/backend/authserver", module + "/backend/core"}},
		"mcptools":                {Imports: []string{module + "/backend/core"}},
	}
	if got := violations(ok); len(got) != 0 {
		t.Errorf("allowed imports reported: %q", got)
	}
}
