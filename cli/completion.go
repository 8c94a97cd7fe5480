package cli

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// bashCompletion asks the binary itself for the words that may follow (urfave/cli's
// --generate-bash-completion), without eval and without needing the bash-completion package.
const bashCompletion = `# agent-deck completion for bash: source <(agent-deck completion bash)
_agent_deck_complete() {
  local cur="${COMP_WORDS[COMP_CWORD]}"
  local words=("${COMP_WORDS[@]:0:COMP_CWORD}")
  local opts
  if [[ "$cur" == -* ]]; then
    opts=$("${words[@]}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${words[@]}" --generate-bash-completion 2>/dev/null)
  fi
  local IFS=$'\n'
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
}
complete -o bashdefault -o default -F _agent_deck_complete agent-deck
`

// zshCompletion is urfave/cli's zsh script with the program name filled in.
const zshCompletion = `#compdef agent-deck
# agent-deck completion for zsh: source <(agent-deck completion zsh)

_agent_deck_complete() {
  local -a opts
  local cur
  cur=${words[-1]}
  if [[ "$cur" == "-"* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion)}")
  fi

  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}

compdef _agent_deck_complete agent-deck
`

var completionShells = []string{"bash", "zsh", "fish"}

func completionCommand() *cli.Command {
	return &cli.Command{
		Name: "completion", Usage: "print a shell completion script: source <(agent-deck completion bash)",
		ArgsUsage: strings.Join(completionShells, "|"),
		Action: func(c *cli.Context) error {
			shell, err := oneArg(c, "shell ("+strings.Join(completionShells, ", ")+")")
			if err != nil {
				return err
			}
			var script string
			switch shell {
			case "bash":
				script = bashCompletion
			case "zsh":
				script = zshCompletion
			case "fish":
				if script, err = c.App.ToFishCompletion(); err != nil {
					return fmt.Errorf("fish completion: %w", err)
				}
			default:
				return userError("unknown shell %q: want one of %s", shell, strings.Join(completionShells, ", "))
			}
			_, err = fmt.Fprint(c.App.Writer, script)
			return err
		},
	}
}
