package tests

import (
	"net/http"
	"strings"
	"testing"
)

// attackCLICompletionEvaluatesNames: deck names are anyone's text (an agent with an agent token
// may create decks). Completing them must never run them: bash's compgen -W expands its word
// list, so a deck named $(touch pwned) ran on TAB; no shell may create the file.
func attackCLICompletionEvaluatesNames(t *testing.T) {
	d := startRESTDeck(t)
	for _, name := range []string{"$(touch pwned)", "`touch pwned`", "x;touch pwned"} {
		d.api.Must(t, http.StatusCreated, "POST", "/api/v1/decks", map[string]any{"name": name}, nil)
	}
	line := `agent-deck --server "$URL" --token "$TOKEN" deck show `
	scripts := map[string]string{
		"bash": `c() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _agent_deck_complete; printf '%s\n' "${COMPREPLY[@]}"; }
c ` + line + `''`,
		"zsh": `compdef() { :; }
_describe() { print -rl -- "${(@P)2}"; }
_files() { :; }
c() { words=("$@"); _agent_deck_complete; }
c ` + line + `''`,
		"fish": `complete -C "agent-deck --server $URL --token $TOKEN deck show "`,
	}
	for sh, test := range scripts {
		t.Run(sh, func(t *testing.T) {
			script := runCLI(t.TempDir(), strings.NewReader(""), "completion", sh).wantCode(t, 0).stdout
			out := shell(t, d, sh, script+"\n"+test+"\n") // fails if the file appeared
			if strings.Count(out, "pwned") < 3 {
				t.Errorf("%s did not offer the names at all:\n%s", sh, out)
			}
		})
	}
}
