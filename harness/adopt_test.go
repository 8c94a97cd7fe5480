package harness

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestExpandReferences(t *testing.T) {
	env := map[string]string{"TOK": "t0k", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	p := Paths{Home: "/h", Project: "/p"}
	for _, tc := range []struct {
		name, client string
		scope        Scope
		in, want     string
		missing      []string
		unknown      []string
	}{
		{"claude var", "claude-code", ScopeUser, "Bearer ${TOK}", "Bearer t0k", nil, nil},
		{"claude default", "claude-code", ScopeUser, "${NOPE:-dflt}", "dflt", nil, nil},
		{"claude empty is missing", "claude-code", ScopeProject, "${EMPTY}", "${EMPTY}", []string{"EMPTY"}, nil},
		{"cursor env", "cursor", ScopeUser, "${env:TOK}/${userHome}", "t0k//h", nil, nil},
		{"cursor bare name is not a reference", "cursor", ScopeUser, "${TOK}", "${TOK}", nil, []string{"${TOK}"}},
		{"vscode input", "vscode", ScopeProject, "${input:x}", "${input:x}", nil, []string{"${input:x}"}},
		{"vscode workspace", "vscode", ScopeProject, "${workspaceFolder}/a", "/p/a", nil, nil},
		{"codex literal", "codex", ScopeUser, "${TOK}", "${TOK}", nil, nil},
		{"desktop literal", "claude-desktop", ScopeUser, "${TOK}", "${TOK}", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg, err := Lookup(tc.client, tc.scope)
			if err != nil {
				t.Fatal(err)
			}
			got, missing, unknown := tg.Expand(tc.in, lookup, p)
			if got != tc.want || !slices.Equal(missing, tc.missing) || !slices.Equal(unknown, tc.unknown) {
				t.Errorf("Expand(%q) = %q %v %v, want %q %v %v", tc.in, got, missing, unknown, tc.want, tc.missing, tc.unknown)
			}
		})
	}
}

func TestStandardJSON(t *testing.T) {
	in := `{ // c
  "a": "x // not a comment, /* nor this */",
  "b": [1, 2, /* two */ ],
  "c": {"d": 1,},
}`
	got := string(standardJSON([]byte(in)))
	var v map[string]any
	if err := json.Unmarshal([]byte(got), &v); err != nil {
		t.Fatalf("standardJSON gave invalid JSON %q: %v", got, err)
	}
	if v["a"] != "x // not a comment, /* nor this */" {
		t.Errorf("a string was changed: %q", got)
	}
}
