package cli

import (
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
