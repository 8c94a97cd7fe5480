package cli

import (
	"fmt"
	"net/url"
	"os/exec"
	"runtime"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend/core"
)

func dashboardCommand() *cli.Command {
	return &cli.Command{
		Name:  "dashboard",
		Usage: "open the dashboard in the browser, signed in (a one-time sign-in URL)",
		Description: "Asks the running server for a one-time sign-in code and opens <server>/signin with it; the page\n" +
			"trades the code for a short-lived admin session cookie. The code works once, for 2 minutes.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "no-open", Usage: "print the sign-in URL instead of opening a browser"},
		},
		Action: dashboardOpen,
	}
}

func dashboardOpen(c *cli.Context) error {
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	var code core.SignInCode
	if err := cl.Do(c.Context, "POST", "/dashboard/signin-codes", nil, nil, &code); err != nil {
		return fail(err)
	}
	// The code travels in the fragment: browsers never send it to the server or in a Referer.
	link := strings.TrimRight(cl.BaseURL, "/") + "/signin#code=" + url.QueryEscape(code.Code)
	if c.Bool("no-open") {
		_, err := fmt.Fprintln(c.App.Writer, link)
		return err
	}
	if err := openBrowser(link); err != nil {
		fmt.Fprintf(c.App.ErrWriter, "Could not open a browser (%v); open this URL within 2 minutes:\n", err)
		_, err := fmt.Fprintln(c.App.Writer, link)
		return err
	}
	fmt.Fprintln(c.App.ErrWriter, "Opened the dashboard in your browser.")
	return nil
}

// openBrowser hands the URL to the desktop's opener and does not wait for it: the opener (and
// the browser it starts) must outlive this command, so no context may kill it.
func openBrowser(link string) error {
	name, args := "xdg-open", []string{link}
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler", link}
	}
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }() // reap it if it ends before we do
	return nil
}
