package cli

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// credentialSetMineCommand stores the caller's own secret for a credential that each person
// brings their own of.
func credentialSetMineCommand() *cli.Command {
	return &cli.Command{
		Name: "set-mine", Usage: "set your own secret for a credential each person brings their own of (hidden prompt or stdin)",
		ArgsUsage: "ID-OR-LABEL", Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			ref, cl, err := refAndClient(c, "credential id or label")
			if err != nil {
				return err
			}
			secret, err := readSecret(c, "Your secret for "+ref+": ")
			if err != nil {
				return err
			}
			var cred backend.Credential
			if err := cl.Do(c.Context, http.MethodPut, "/credentials/"+url.PathEscape(ref)+"/mine", nil,
				core.OwnSecretInput{Value: secret}, &cred); err != nil {
				return fail(err)
			}
			if c.Bool("json") {
				return printJSON(c.App.Writer, cred)
			}
			_, err = fmt.Fprintf(c.App.Writer, "Stored your own secret for %s; your calls present it, nobody else's do\n", cred.ID)
			return err
		},
	}
}

// credentialUnsetMineCommand forgets the caller's own secret for a credential.
func credentialUnsetMineCommand() *cli.Command {
	return &cli.Command{
		Name: "unset-mine", Usage: "forget your own secret for a credential", ArgsUsage: "ID-OR-LABEL",
		Action: func(c *cli.Context) error {
			ref, cl, err := refAndClient(c, "credential id or label")
			if err != nil {
				return err
			}
			if err := cl.Do(c.Context, http.MethodDelete, "/credentials/"+url.PathEscape(ref)+"/mine", nil, nil, nil); err != nil {
				return fail(err)
			}
			_, err = fmt.Fprintf(c.App.Writer, "Forgot your own secret for %s\n", ref)
			return err
		},
	}
}

// credentialSecretState says what is stored: the shared secret, or for a personal credential
// whether the caller set their own.
func credentialSecretState(c backend.Credential) string {
	if !c.Personal {
		return secretState(c.HasSecret)
	}
	if c.HasOwnSecret {
		return "personal: yours set"
	}
	return "personal: yours missing"
}
