package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend/core"
)

// largeBundleCards is the size from which import and export report progress on stderr.
const largeBundleCards = 100

func exportCommand() *cli.Command {
	return &cli.Command{
		Name: "export", Usage: "write the collection (or one deck with what it links) to a bundle file, without secrets",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "deck", Usage: "export only this deck (id or name) and its cards"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "bundle file; - for stdout", Required: true},
			&cli.BoolFlag{Name: "json", Usage: "print what was written (file, bytes, card counts) as JSON; the bundle on stdout (-o -) is JSON already"},
		},
		Action: exportAction,
	}
}

func exportAction(c *cli.Context) error {
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	out := c.String("output")
	bundle, err := cl.Export(c.Context, c.String("deck"))
	if err != nil {
		return fail(err)
	}
	counts := bundleCounts(bundle)
	if counts.total() >= largeBundleCards {
		fmt.Fprintf(c.App.ErrWriter, "Exported %s; writing %d bytes…\n", counts, len(bundle))
	}
	if out == "-" {
		_, err = c.App.Writer.Write(append(bundle, '\n'))
		return err
	}
	if err := writeFileAtomic(out, append(bundle, '\n'), 0o600); err != nil {
		return userError("writing %s: %v", out, cause(err))
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, map[string]any{"output": out, "bytes": len(bundle) + 1,
			"services": counts.services, "credentials": counts.credentials, "playbooks": counts.playbooks, "decks": counts.decks})
	}
	fmt.Fprintf(c.App.ErrWriter, "Wrote %s to %s\n", counts, out)
	return nil
}

func importCommand() *cli.Command {
	return &cli.Command{
		Name: "import", Usage: "apply a bundle file in one transaction: existing cards are reused, never overwritten",
		ArgsUsage: "FILE",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "report what would happen without changing anything"},
			&cli.BoolFlag{Name: "verbose", Usage: fmt.Sprintf("list every name in the report (else a list of more than %d shows its count and the first %d)", importPreview, importPreview-1)},
			jsonFlag,
		},
		Action: importAction,
	}
}

func importAction(c *cli.Context) error {
	path, err := oneArg(c, "bundle file (- for stdin)")
	if err != nil {
		return err
	}
	var raw []byte
	if path == "-" {
		raw, err = io.ReadAll(c.App.Reader)
	} else {
		raw, err = os.ReadFile(path)
	}
	if err != nil {
		return userError("reading %s: %v", path, err)
	}
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	stop := importProgress(c.App.ErrWriter, bundleCounts(raw), len(raw))
	rep, err := cl.Import(c.Context, json.RawMessage(raw), c.Bool("dry-run"))
	stop()
	if err != nil {
		return fail(err)
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, rep)
	}
	return printImportReport(c.App.Writer, rep, c.Bool("verbose"))
}

// bundleTally counts a bundle's entries for progress lines.
type bundleTally struct{ services, credentials, playbooks, decks int }

func bundleCounts(raw []byte) bundleTally {
	var b struct {
		Services, Credentials, Playbooks, Decks []json.RawMessage
	}
	_ = json.Unmarshal(raw, &b)
	return bundleTally{len(b.Services), len(b.Credentials), len(b.Playbooks), len(b.Decks)}
}

func (t bundleTally) total() int { return t.services + t.credentials + t.playbooks + t.decks }

func (t bundleTally) String() string {
	return fmt.Sprintf("%s, %s, %s, %s", plural(t.services, "service"), plural(t.credentials, "credential"),
		plural(t.playbooks, "playbook"), plural(t.decks, "deck"))
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// importPreview is how many names a report list shows before it is summarised as a count, the
// first names and how many more (a bundle of 300 services is not one line of 300 names).
const importPreview = 6

// preview returns the names to print and how many were left out.
func preview(names []string, verbose bool) ([]string, int) {
	if verbose || len(names) <= importPreview {
		return names, 0
	}
	return names[:importPreview-1], len(names) - (importPreview - 1)
}

func printImportReport(w io.Writer, rep core.ImportReport, verbose bool) error {
	if rep.DryRun {
		fmt.Fprintln(w, "Dry run: nothing was changed. The import would do this:")
	}
	more := false
	for _, section := range []struct {
		title string
		m     map[string][]string
	}{{"Created", rep.Created}, {"Reused (left as they are)", rep.Reused}, {"Skipped", rep.Skipped}} {
		if len(section.m) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s:\n", section.title)
		kinds := make([]string, 0, len(section.m))
		for k := range section.m {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		for _, k := range kinds {
			names, left := preview(section.m[k], verbose)
			switch {
			case len(names) == 0:
			case left > 0:
				more = true
				fmt.Fprintf(w, "  %-12s %d: %s and %d more\n", k+":", len(section.m[k]), strings.Join(names, ", "), left)
			default:
				fmt.Fprintf(w, "  %-12s %s\n", k+":", strings.Join(names, ", "))
			}
		}
	}
	for _, list := range []struct {
		title string
		items []string
	}{{"Values to fill in (bundles carry no secret header or env values):", rep.ValuesNeeded},
		{"Credentials that need a secret (agent-deck credential rotate ID):", rep.CredentialsNeedSecret}} {
		if len(list.items) == 0 {
			continue
		}
		fmt.Fprintln(w, list.title)
		items, left := preview(list.items, verbose)
		for _, v := range items {
			fmt.Fprintf(w, "  %s\n", v)
		}
		if left > 0 {
			more = true
			fmt.Fprintf(w, "  … and %d more\n", left)
		}
	}
	if more {
		fmt.Fprintln(w, "Long lists are shortened; --verbose or --json shows every name.")
	}
	return nil
}

// writeFileAtomic writes data to a temporary file next to path and renames it into place. Its
// errors name path, as os.WriteFile's do: the temporary file means nothing to whoever asked.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return &fs.PathError{Op: "open", Path: path, Err: cause(err)}
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return &fs.PathError{Op: "write", Path: path, Err: cause(err)}
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return &fs.PathError{Op: "chmod", Path: path, Err: cause(err)}
	}
	if err := tmp.Close(); err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: cause(err)}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return &fs.PathError{Op: "rename", Path: path, Err: cause(err)}
	}
	return nil
}

// cause is what went wrong in a file operation, without the path the operation names.
func cause(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}
