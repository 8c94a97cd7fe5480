package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend/core"
)

// limitsFlags are the flags of `deck limits` and `service limits`.
func limitsFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "calls-per-minute", Usage: "calls a minute (0: no limit)"},
		&cli.IntFlag{Name: "concurrent-calls", Usage: "calls in flight at once (0: no limit)"},
		&cli.BoolFlag{Name: "clear", Usage: "remove the override: inherit both limits again"},
		jsonFlag,
	}
}

// deckLimitsCommand shows or overrides the rate limits of a deck's services, or of one of them.
func deckLimitsCommand() *cli.Command {
	return &cli.Command{
		Name:      "limits",
		Usage:     "show or set the rate limits of calls to a deck's services (every service, or the one named)",
		ArgsUsage: "DECK [SERVICE]",
		Flags:     limitsFlags(),
		Action: func(c *cli.Context) error {
			args, err := positional(c)
			if err != nil {
				return err
			}
			if len(args) < 1 || len(args) > 2 || strings.TrimSpace(args[0]) == "" {
				return userError("usage: agent-deck deck limits DECK [SERVICE] [--calls-per-minute N] [--concurrent-calls N] [--clear]")
			}
			service := ""
			if len(args) == 2 {
				service = args[1]
			}
			return limitsAction(c, args[0], service)
		},
	}
}

// serviceLimitsCommand shows or overrides a service's rate limits on every deck.
func serviceLimitsCommand() *cli.Command {
	return &cli.Command{
		Name:      "limits",
		Usage:     "show or set the rate limits of calls to a service through any deck",
		ArgsUsage: "SERVICE",
		Flags:     limitsFlags(),
		Action: func(c *cli.Context) error {
			svc, err := oneArg(c, "service")
			if err != nil {
				return err
			}
			return limitsAction(c, "", svc)
		},
	}
}

// limitsAction shows the limits of a subject, or sets them when a flag is given: a flag not
// given inherits.
func limitsAction(c *cli.Context, deck, service string) error {
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	set := c.IsSet("calls-per-minute") || c.IsSet("concurrent-calls")
	if set && c.Bool("clear") {
		return userError("%s: give --clear alone, or the limits to set", commandName(c))
	}
	var out core.RateLimits
	switch {
	case set || c.Bool("clear"):
		var in core.RateLimitsInput
		if c.IsSet("calls-per-minute") {
			v := c.Int("calls-per-minute")
			in.CallsPerMinute = &v
		}
		if c.IsSet("concurrent-calls") {
			v := c.Int("concurrent-calls")
			in.ConcurrentCalls = &v
		}
		out, err = cl.SetRateLimits(c.Context, deck, service, in)
	default:
		out, err = cl.RateLimits(c.Context, deck, service)
	}
	if err != nil {
		return fail(err)
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, out)
	}
	return keyValues(c.App.Writer, [][2]string{
		{"subject", limitsSubject(out)},
		{"calls a minute", limitValue(out.CallsPerMinute) + " (" + out.CallsPerMinuteSource + ")"},
		{"calls in flight", limitValue(out.ConcurrentCalls) + " (" + out.ConcurrentCallsSource + ")"},
		{"each token", limitValue(out.Token.CallsPerMinute) + " a minute, " + limitValue(out.Token.ConcurrentCalls) + " in flight (server)"},
	})
}

func limitsSubject(v core.RateLimits) string {
	switch {
	case v.DeckName != "" && v.ServiceName != "":
		return fmt.Sprintf("service %s on deck %s", v.ServiceName, v.DeckName)
	case v.DeckName != "":
		return "every service on deck " + v.DeckName
	}
	return "service " + v.ServiceName + " on every deck"
}

func limitValue(n int) string {
	if n == 0 {
		return "no limit"
	}
	return strconv.Itoa(n)
}
