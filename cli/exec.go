package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli/client"
)

func execCommand() *cli.Command {
	return &cli.Command{
		Name:      "exec",
		Usage:     "run a command with credential secrets in its environment (never printed; audited)",
		ArgsUsage: "-- CMD [ARGS…]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "deck", Usage: "refuse credentials that are not on this deck (id or name)"},
			&cli.StringFlag{Name: "connections", Aliases: []string{"c"}, Required: true,
				Usage: "comma-separated credential ids or labels, e.g. cred_github,cred_openai"},
			&cli.BoolFlag{Name: "dry-run", Usage: "check and print the variable names; run nothing"},
			&cli.BoolFlag{Name: "json", Usage: "print a JSON report (command, variables, exit code) on stdout; the command's own stdout goes to stderr"},
		},
		SkipFlagParsing: false,
		Action:          execAction,
	}
}

func execAction(c *cli.Context) error {
	argv := c.Args().Slice()
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		return userError("exec: give the command after --, e.g. agent-deck exec --connections cred_x -- env")
	}
	var refs []string
	for _, r := range strings.Split(c.String("connections"), ",") {
		if r = strings.TrimSpace(r); r != "" {
			refs = append(refs, r)
		}
	}
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	in := core.ExecInput{Deck: c.String("deck"), CredentialIDs: refs, Command: argv, DryRun: c.Bool("dry-run")}
	grant, err := cl.StartExec(c.Context, in)
	if err != nil {
		return fail(err)
	}
	report := execReport{Command: argv, Variables: orEmptyList(grant.Variables), DryRun: in.DryRun}
	if in.DryRun && c.Bool("json") {
		return printJSON(c.App.Writer, report)
	}
	if in.DryRun {
		for _, v := range grant.Variables {
			fmt.Fprintf(c.App.Writer, "%s  (from %s)\n", v.EnvName, v.CredentialID)
		}
		_, err := fmt.Fprintf(c.App.Writer, "would run: %s\n", strings.Join(argv, " "))
		return err
	}
	code := runChild(c, argv, grant.Env)
	finishExec(c, cl, grant.AuditID, code)
	if c.Bool("json") {
		report.ExitCode, report.AuditID = &code, grant.AuditID
		if err := printJSON(c.App.Writer, report); err != nil {
			return err
		}
	}
	if code != 0 {
		return cli.Exit("", code)
	}
	return nil
}

// execReport is exec --json: what ran (never a secret value), with which variables, and how it
// ended.
type execReport struct {
	Command   []string            `json:"command"`
	Variables []core.ExecVariable `json:"variables"`
	DryRun    bool                `json:"dry_run"`
	ExitCode  *int                `json:"exit_code,omitempty"`
	AuditID   int64               `json:"audit_id,omitempty"`
}

// runChild runs argv with the granted variables added to this process's environment, passing
// stdin, stdout and stderr through; it returns the child's exit code (127 when it cannot start,
// 128+signal when killed by a signal). Interrupts reach the child through the terminal's process
// group, so it decides how to stop.
func runChild(c *cli.Context, argv []string, env map[string]string) int {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.App.Reader, c.App.Writer, c.App.ErrWriter
	if c.Bool("json") { // stdout holds the report alone
		cmd.Stdout = c.App.ErrWriter
	}
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if err := cmd.Run(); err != nil {
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			if code := exitErr.ExitCode(); code >= 0 {
				return code
			}
			return 128 + signalNumber(exitErr)
		}
		fmt.Fprintf(c.App.ErrWriter, "agent-deck: cannot run %s: %v\n", argv[0], errors.Unwrap(err))
		return 127
	}
	return 0
}

// finishExec records the exit code; a failure to record it is reported but never changes the
// command's own exit code.
func finishExec(c *cli.Context, cl *client.Client, id int64, code int) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Context), 5*time.Second)
	defer cancel()
	if err := cl.FinishExec(ctx, id, core.ExecFinish{ExitCode: code}); err != nil {
		fmt.Fprintf(c.App.ErrWriter, "agent-deck: could not record the exit code of exec %d: %v\n", id, err)
	}
}
