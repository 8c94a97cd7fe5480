package cli

import (
	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/proxy"
)

// launchCommandName is the hidden command serve re-executes its own binary with to start each
// local MCP server (see proxy/launcher.go): it keeps the server's whole process tree from
// outliving serve, even after kill -9.
const launchCommandName = "internal-launch"

func launchCommand() *cli.Command {
	return &cli.Command{
		Name:            launchCommandName,
		Usage:           "run a local MCP server for serve (internal)",
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			return cli.Exit("", proxy.RunLauncher(c.Args().Slice()))
		},
	}
}
