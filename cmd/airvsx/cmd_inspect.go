package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/hostlaunch/vscodeapi"
	"github.com/airvsx/airvsx/index/vsix"
	"github.com/airvsx/airvsx/internal/termtext"
)

type inspectOptions struct {
	json bool
}

func newInspectCommand(g *globals) *cobra.Command {
	var opts inspectOptions
	cmd := &cobra.Command{
		Use: "inspect FILE.vsix",
		Example: `  airvsx inspect redhat.vscode-yaml-1.15.0.vsix
  airvsx inspect --json downloaded.vsix`,
		Short: "Check an untrusted .vsix and show what it holds",
		Long: `Inspect checks a .vsix against every safety rule (size, entry count,
compression ratio, names, links and devices, collisions, size lies,
encryption), reads and cross-checks its two manifests, and shows its ID,
version, platform, engine range, activation events, contributions,
dependencies, declared and statically detected capabilities, the VS Code
API members its code names that the airvsx host does not implement
("unsupported API": calling them fails), its files, and every problem
found.

Exit status 1 when the archive breaks a rule, is not a zip, or its
manifests disagree; 0 otherwise (warnings are shown); 2 when the file
cannot be read.`,
		Args: namedArgs("inspect", "FILE.vsix"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runInspect(cmd, g, opts, args[0])
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print as JSON")
	return cmd
}

func runInspect(cmd *cobra.Command, g *globals, opts inspectOptions, path string) error {
	in, err := vsix.Inspect(cmd.Context(), path, vsix.Options{})
	if err != nil {
		return fmt.Errorf("inspect: %w", err)
	}
	if opts.json {
		if err := g.printJSON(inspectionJSON{in, unsupportedAPI(in)}); err != nil {
			return err
		}
	} else if err := printInspection(g.stdout, in); err != nil {
		return err
	}
	if in.Err() != nil {
		return errFailed
	}
	return nil
}

// inspectionJSON is inspect --json: the inspection and the API members
// its code names that the host does not implement.
type inspectionJSON struct {
	*vsix.Inspection
	UnsupportedAPI []string `json:"unsupportedAPI"`
}

// unsupportedAPI lists the API members the package's code names that the
// host does not implement, each as vscode.X; never nil.
func unsupportedAPI(in *vsix.Inspection) []string {
	out := []string{}
	for _, n := range vscodeapi.Unsupported(in.APIMembers) {
		out = append(out, "vscode."+n)
	}
	return out
}

func printInspection(w io.Writer, in *vsix.Inspection) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	// Every value may come from the package: escaped, so a display name
	// holding "\nproblems: none" or an ANSI sequence cannot forge output.
	row := func(k, v string) { fmt.Fprintf(tw, "%s:\t%s\n", k, termtext.Escape(v)) }
	row("file", in.File)
	row("size", fmt.Sprintf("%d bytes", in.Size))
	row("sha256", in.SHA256)
	if in.ID != "" || in.Version != "" {
		row("id", orNone(in.ID))
		row("version", orNone(in.Version))
		row("platform", orNone(string(in.Platform)))
		row("pre-release", yesNo(in.PreRelease))
		if in.DisplayName != "" {
			row("display name", in.DisplayName)
		}
		row("engines.vscode", orNone(in.Engine))
		row("main", orNone(in.Main))
		if in.Browser != "" {
			row("browser", in.Browser)
		}
		var events []string
		for _, e := range in.Activation {
			s := e.Event
			switch {
			case !e.Known:
				s += " (unknown kind)"
			case e.Implicit:
				s += " (implicit)"
			case e.Event == "*":
				s += " (eager: at startup)"
			}
			events = append(events, s)
		}
		row("activation", list(events))
		row("contributes", list(in.Contributions))
		for _, c := range in.Commands {
			row("  command", c.Command+" "+strconv.Quote(c.Title))
		}
		for _, l := range in.Languages {
			row("  language", l.ID)
		}
		row("dependencies", list(in.Dependencies))
		row("extension pack", list(in.ExtensionPack))
		declared := list(in.Declared)
		if len(in.Unknown) > 0 {
			declared += fmt.Sprintf(" (unknown, denied: %s)", strings.Join(in.Unknown, ", "))
		}
		row("capabilities declared", declared)
		var detected []string
		for _, f := range in.Detected {
			detected = append(detected, fmt.Sprintf("%s (%s in %s)", f.Kind, f.Trigger, f.File))
		}
		row("capabilities detected", list(detected))
		row("unsupported API", list(unsupportedAPI(in)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	if len(in.Files) > 0 {
		fmt.Fprintf(w, "files (%d):\n", len(in.Files))
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		for _, f := range in.Files {
			if f.Dir {
				fmt.Fprintf(tw, "\t-\t  %s/\n", termtext.Escape(f.Name))
				continue
			}
			fmt.Fprintf(tw, "\t%d\t  %s\n", f.Size, termtext.Escape(f.Name))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}

	if len(in.Problems) == 0 {
		_, err := fmt.Fprintln(w, "problems: none")
		return err
	}
	fmt.Fprintf(w, "problems (%d):\n", len(in.Problems))
	for _, p := range in.Problems {
		fmt.Fprintf(w, "  %-7s %s\n", p.Severity, termtext.Escape(p.String()))
	}
	return nil
}

func list(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
