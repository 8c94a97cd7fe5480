// Package cli is the agent-deck command line and the composition root: `serve` wires the store,
// the proxy, the core, the REST API and the MCP surface together; every other command is a client
// of a running server's REST API.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"
)

// App builds the agent-deck command tree with the given standard streams.
func App(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:                 "agent-deck",
		Usage:                "one MCP endpoint for your agents: decks of servers, keys and playbooks",
		Version:              ReadBuildInfo().String(),
		Reader:               stdin,
		Writer:               stdout,
		ErrWriter:            stderr,
		EnableBashCompletion: true,
		HideHelpCommand:      true,
		Flags:                globalFlags(),
		Commands:             withArgCompletion("", withUsageErrors(withUnknownCommand(withGlobalFlags(commands())))),
		Action:               unknownCommand,
		OnUsageError:         usageError,
		ExitErrHandler:       func(*cli.Context, error) {},
	}
}

// commands lists every top-level command, in help order.
func commands() []*cli.Command {
	return []*cli.Command{
		serveCommand(),
		mcpStdioCommand(),
		statusCommand(),
		deckCommand(),
		serviceCommand(),
		credentialCommand(),
		playbookCommand(),
		proposalsCommand(), proposalCommand(), signalsCommand(), signalCommand(),
		tokenCommand(), personCommand(),
		dashboardCommand(),
		exportCommand(),
		importCommand(),
		execCommand(),
		callsCommand(),
		setupCommand(),
		useCommand(),
		adoptCommand(),
		statuslineCommand(),
		launchCommand(),
		versionCommand(),
		completionCommand(),
		manCommand(),
	}
}

// withGlobalFlags lets --home, --server and --token follow any command as well as precede it.
func withGlobalFlags(cmds []*cli.Command) []*cli.Command {
	for _, c := range cmds {
		have := map[string]bool{}
		for _, f := range c.Flags {
			for _, n := range f.Names() {
				have[n] = true
			}
		}
		for _, f := range globalFlags() {
			if !have[f.Names()[0]] {
				c.Flags = append(c.Flags, f)
			}
		}
		withGlobalFlags(c.Subcommands)
	}
	return cmds
}

// Run executes the CLI and returns the process exit code: 0 ok, 1 user error, 2 internal or
// unreachable.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	err := App(stdin, stdout, stderr).RunContext(ctx, args)
	if err == nil {
		return 0
	}
	var coder cli.ExitCoder
	if errors.As(err, &coder) {
		if msg := coder.Error(); msg != "" {
			fmt.Fprintln(stderr, "agent-deck:", msg)
		}
		return coder.ExitCode()
	}
	fmt.Fprintln(stderr, "agent-deck:", err)
	return 1
}
