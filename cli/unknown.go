package cli

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
)

// withUnknownCommand gives every command that only groups subcommands (and the app itself, via
// App.Action) an action that shows its help when called bare and refuses an unknown
// subcommand as a user error (exit 1) naming the closest one, instead of urfave/cli's
// "No help topic" with exit 3.
func withUnknownCommand(cmds []*cli.Command) []*cli.Command {
	for _, c := range cmds {
		if len(c.Subcommands) > 0 && c.Action == nil {
			c.Action = unknownCommand
		}
		withUnknownCommand(c.Subcommands)
	}
	return cmds
}

func unknownCommand(c *cli.Context) error {
	name := c.Args().First()
	root := c.Command == nil || c.Command.Name == ""
	if name == "" || name == "help" {
		if root {
			return cli.ShowAppHelp(c)
		}
		return cli.ShowSubcommandHelp(c)
	}
	var subs []*cli.Command
	prefix := c.App.Name
	if root {
		subs = c.App.Commands
	} else {
		subs = c.Command.Subcommands
		prefix = c.Command.HelpName
	}
	if best := closestCommand(subs, name); best != "" {
		return userError("unknown command %q; did you mean %q? (see %s --help)", name, prefix+" "+best, prefix)
	}
	return userError("unknown command %q (see %s --help)", name, prefix)
}

// withUsageErrors makes every command report a flag it cannot parse, or a required flag left
// out, as a user error on stderr (exit 1) that names the command and where its help is. urfave/cli
// would print "Incorrect Usage" and the whole help on stdout, which a script reading stdout takes
// for the command's output.
func withUsageErrors(cmds []*cli.Command) []*cli.Command {
	for _, c := range cmds {
		c.OnUsageError = usageError
		var required []string
		for _, f := range c.Flags {
			if s, ok := f.(*cli.StringFlag); ok && s.Required {
				s.Required = false // checked below, where the refusal is ours
				required = append(required, s.Name)
			}
		}
		if action := c.Action; len(required) > 0 && action != nil {
			c.Action = func(ctx *cli.Context) error {
				for _, name := range required {
					if ctx.String(name) == "" {
						return usageError(ctx, fmt.Errorf("--%s is required", name), false)
					}
				}
				return action(ctx)
			}
		}
		withUsageErrors(c.Subcommands)
	}
	return cmds
}

// usageError is a command line the flag parser refused, as a user error.
func usageError(c *cli.Context, err error, _ bool) error {
	name, help := commandName(c), c.App.Name
	if c.Command != nil && c.Command.HelpName != "" {
		help = c.Command.HelpName
	}
	if name == c.App.Name {
		return userError("%v (see %s --help)", err, help)
	}
	return userError("%s: %v (see %s --help)", name, err, help)
}

// closestCommand is the visible command name nearest to typed (edit distance at most a third of
// its length, at least 2), or one it is a prefix of; "" when none is close.
func closestCommand(cmds []*cli.Command, typed string) string {
	best, bestDist := "", max(2, len(typed)/3)+1
	for _, c := range cmds {
		if c.Hidden || c.Name == "help" {
			continue
		}
		for _, n := range c.Names() {
			d := backend.EditDistance(strings.ToLower(typed), n)
			if strings.HasPrefix(n, strings.ToLower(typed)) {
				d = 1
			}
			if d < bestDist {
				best, bestDist = c.Name, d
			}
		}
	}
	return best
}
