package tests

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

// refusalVerbs are the verbs a refusal's "may not …" may start with. A what that starts with
// anything else reads as a description ("may not a one-time dashboard sign-in code"); add the
// verb here when a new refusal needs one.
var refusalVerbs = []string{"accept", "add", "allow", "approve", "bind", "call", "change", "check", "choose", "complete", "connect", "create", "delete", "discard", "disconnect", "end", "export", "finish", "get", "import", "link", "list", "open", "override", "preview", "propose", "reach", "read", "register", "reject", "remove", "rename", "reorder", "resolve", "restore", "review", "revoke", "rotate", "say", "search", "set", "sign", "subscribe", "switch", "turn", "unlink", "unsubscribe", "use", "widen"}

// TestRefusalsAreSentences holds issue 27 item 11: every refusal for want of scope is one
// sentence, `scope "X" may not <verb phrase>`, built by backend.Refuse, on every surface. The
// source is read: each literal completing "may not" starts with a verb, and no FORBIDDEN error
// names a scope in a sentence of its own.
func TestRefusalsAreSentences(t *testing.T) {
	whatArg := map[string]int{"RequireAdmin": 1, "RequireWrite": 1, "RequireRead": 1, "Refuse": 1, "Authorize": 2}
	root := filepath.Join("..")
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			name := calleeName(call)
			if i, ok := whatArg[name]; ok && len(call.Args) > i {
				if lit := leadingLiteral(call.Args[i]); lit != "" {
					checked++
					if verb, _, _ := strings.Cut(lit, " "); !slices.Contains(refusalVerbs, verb) {
						t.Errorf("%s: %s(…, %q): \"may not %s\" does not start with a verb", path, name, lit, lit)
					}
				}
			}
			if name == "Errorf" && len(call.Args) > 1 && !strings.HasSuffix(path, filepath.Join("backend", "actor.go")) && strings.HasSuffix(exprText(call.Args[0]), "CodeForbidden") &&
				strings.HasPrefix(leadingLiteral(call.Args[1]), "scope ") {
				t.Errorf("%s: a scope refusal of its own (%s); use backend.Refuse", path, leadingLiteral(call.Args[1]))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked %d refusals; the scan missed them", checked)
	}
}

// TestRESTRefusalNamesTheCall: a route's own scope check, which runs before the Hub's, refuses
// in the same sentence, naming the call.
func TestRESTRefusalNamesTheCall(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	agent := s.token(backend.ScopeAgent)
	tests := []struct{ method, path, want string }{
		{http.MethodPost, "/api/v1/proposals/00000000-0000-4000-8000-000000000001/accept",
			`scope "agent" may not call POST /api/v1/proposals/{proposal}/accept`},
		{http.MethodPost, "/api/v1/dashboard/signin-codes", `scope "agent" may not call POST /api/v1/dashboard/signin-codes`},
	}
	for _, tc := range tests {
		a := s.api().Do(t, agent, tc.method, tc.path, map[string]any{})
		if code, msg, _ := a.Err(); a.Status != http.StatusForbidden || code != backend.CodeForbidden || msg != tc.want {
			t.Errorf("%s %s: %d %s, want 403 %q", tc.method, tc.path, a.Status, a.Body, tc.want)
		}
	}
}

func calleeName(call *ast.CallExpr) string {
	switch f := call.Fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

// leadingLiteral is the text a string argument starts with: a literal, the left end of a
// concatenation, or the format of fmt.Sprintf; "" when it starts with no literal.
func leadingLiteral(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.BasicLit:
		if s, err := strconv.Unquote(x.Value); err == nil {
			return s
		}
	case *ast.BinaryExpr:
		return leadingLiteral(x.X)
	case *ast.CallExpr:
		if calleeName(x) == "Sprintf" && len(x.Args) > 0 {
			return leadingLiteral(x.Args[0])
		}
	}
	return ""
}

func exprText(e ast.Expr) string {
	if s, ok := e.(*ast.SelectorExpr); ok {
		return exprText(s.X) + "." + s.Sel.Name
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
