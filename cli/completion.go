package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli/client"
)

// bashCompletion asks the binary itself for the words that may follow (urfave/cli's
// --generate-bash-completion), without eval and without needing the bash-completion package.
// The words can be names from the server, so none is ever expanded (compgen -W would run a
// command substitution in a name): each is quoted with printf %q and kept when it starts with the
// word being completed as typed.
const bashCompletion = `# agent-deck completion for bash: source <(agent-deck completion bash)
_agent_deck_complete() {
  local cur="${COMP_WORDS[COMP_CWORD]}"
  local words=("${COMP_WORDS[@]:0:COMP_CWORD}")
  local opts line quoted
  if [[ "$cur" == -* ]]; then
    opts=$("${words[@]}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${words[@]}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=()
  while IFS= read -r line; do
    [[ -z "$line" ]] && continue
    printf -v quoted '%q' "$line"
    [[ "$quoted" == "$cur"* ]] && COMPREPLY+=("$quoted")
  done <<< "$opts"
}
complete -o bashdefault -o default -F _agent_deck_complete agent-deck
`

// zshCompletion is urfave/cli's zsh script with the program name filled in, and colons in the
// words escaped (_describe reads "word:description").
const zshCompletion = `#compdef agent-deck
# agent-deck completion for zsh: source <(agent-deck completion zsh)

_agent_deck_complete() {
  local -a opts
  local cur
  cur=${words[-1]}
  if [[ "$cur" == "-"* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi
  opts=("${(@)opts//:/\\:}")

  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}

compdef _agent_deck_complete agent-deck
`

// fishDynamic adds to urfave/cli's fish script (which knows the command tree) the words only the
// binary knows, names from the server, by asking it as bash does.
const fishDynamic = `
# Names from the running server (decks, services, playbooks, credentials, tools).
function __agent_deck_names
    set -l tokens (commandline -opc)
    $tokens --generate-bash-completion 2>/dev/null
end
complete -c agent-deck -f -a '(__agent_deck_names)'
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
				script += fishDynamic
			default:
				return userError("unknown shell %q: want one of %s", shell, strings.Join(completionShells, ", "))
			}
			_, err = fmt.Fprint(c.App.Writer, script)
			return err
		},
	}
}

// completionTimeout bounds the server's answer while the shell waits for completions.
const completionTimeout = 1500 * time.Millisecond

// nameSource lists the words that may fill one argument, from the running server; args are the
// command's arguments typed before it.
type nameSource func(ctx context.Context, cl *client.Client, args []string) ([]string, error)

var (
	completeDecks nameSource = func(ctx context.Context, cl *client.Client, _ []string) ([]string, error) {
		decks, err := cl.ListDecks(ctx)
		return namesOf(decks, func(d backend.Deck) string { return d.Name }), err
	}
	completeServices nameSource = func(ctx context.Context, cl *client.Client, _ []string) ([]string, error) {
		svcs, err := cl.ListServices(ctx)
		return namesOf(svcs, func(s backend.ServiceCard) string { return s.Name }), err
	}
	completePlaybooks nameSource = func(ctx context.Context, cl *client.Client, _ []string) ([]string, error) {
		pbs, err := cl.ListPlaybooks(ctx)
		return namesOf(pbs, func(p backend.Playbook) string { return p.Title }), err
	}
	completeCredentials nameSource = func(ctx context.Context, cl *client.Client, _ []string) ([]string, error) {
		creds, err := cl.ListCredentials(ctx)
		return namesOf(creds, func(c backend.Credential) string { return c.Label }), err
	}
	// completeTools are the downstream tools of the service named first.
	completeTools nameSource = func(ctx context.Context, cl *client.Client, args []string) ([]string, error) {
		if len(args) == 0 {
			return nil, nil
		}
		tools, err := cl.ListServiceTools(ctx, args[0])
		return namesOf(tools, func(t core.ToolInfo) string { return t.Name }), err
	}
)

func words(w ...string) nameSource {
	return func(context.Context, *client.Client, []string) ([]string, error) { return w, nil }
}

func namesOf[T any](items []T, name func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = name(it)
	}
	return out
}

// argCompletion says what fills each argument of a command; more repeats the last source for
// commands that take any number of them.
type argCompletion struct {
	args []nameSource
	more bool
}

// argCompletions is every command whose arguments the shell completes from the server, by the
// command as people type it. TestArgCompletionsNameCommands fails on a row without a command.
var argCompletions = map[string]argCompletion{
	"use":             {args: []nameSource{completeDecks}},
	"deck show":       {args: []nameSource{completeDecks}},
	"deck delete":     {args: []nameSource{completeDecks}},
	"deck tools":      {args: []nameSource{completeDecks, completeServices}},
	"deck credential": {args: []nameSource{completeDecks, completeServices, completeCredentials}},
	"deck sampling":   {args: []nameSource{completeDecks, completeServices}},
	"calls capture":   {args: []nameSource{completeDecks, words("on", "off")}},

	"service show":       {args: []nameSource{completeServices}},
	"service delete":     {args: []nameSource{completeServices}},
	"service edit":       {args: []nameSource{completeServices}},
	"service tools":      {args: []nameSource{completeServices}},
	"service check":      {args: []nameSource{completeServices}},
	"service connect":    {args: []nameSource{completeServices}},
	"service disconnect": {args: []nameSource{completeServices}},
	"service enable":     {args: []nameSource{completeServices, completeTools}, more: true},
	"service disable":    {args: []nameSource{completeServices, completeTools}, more: true},
	"service approve":    {args: []nameSource{completeServices, completeTools}, more: true},

	"playbook show":   {args: []nameSource{completePlaybooks}},
	"playbook delete": {args: []nameSource{completePlaybooks}},

	"credential show":   {args: []nameSource{completeCredentials}},
	"credential delete": {args: []nameSource{completeCredentials}},
	"credential rotate": {args: []nameSource{completeCredentials}},
}

// withArgCompletion gives each command of argCompletions its completion; path is the command
// path above cmds ("" at the top).
func withArgCompletion(path string, cmds []*cli.Command) []*cli.Command {
	for _, c := range cmds {
		full := strings.TrimSpace(path + " " + c.Name)
		if ac, ok := argCompletions[full]; ok {
			c.BashComplete = ac.complete(c)
		}
		withArgCompletion(full, c.Subcommands)
	}
	return cmds
}

// complete prints the words for the argument being typed, one a line, asking the server with a
// short timeout; on any failure it prints nothing, so the shell falls back to its own. A flag
// being typed gets urfave/cli's flag completion (which reads os.Args, as this does: completion
// runs only in the binary, as the shell starts it).
func (ac argCompletion) complete(cmd *cli.Command) cli.BashCompleteFunc {
	return func(c *cli.Context) {
		// The word before --generate-bash-completion is the one being typed when it is a flag
		// not yet whole (the scripts pass a flag being typed, and nothing else being typed).
		if n := len(os.Args); n >= 2 && strings.HasPrefix(os.Args[n-2], "-") &&
			findFlag(cmd.Flags, strings.TrimLeft(os.Args[n-2], "-")) == nil {
			cli.DefaultCompleteWithFlags(cmd)(c)
			return
		}
		args, err := positional(c)
		if err != nil {
			return
		}
		i := len(args)
		if i >= len(ac.args) {
			if !ac.more {
				return
			}
			i = len(ac.args) - 1
		}
		opts := clientOptions(c)
		opts.Timeout = completionTimeout
		cl, err := client.New(opts)
		if err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(c.Context, completionTimeout)
		defer cancel()
		names, err := ac.args[i](ctx, cl, args)
		if err != nil {
			return
		}
		for _, n := range names {
			if n != "" && !strings.ContainsAny(n, "\n\r") {
				fmt.Fprintln(c.App.Writer, n)
			}
		}
	}
}
