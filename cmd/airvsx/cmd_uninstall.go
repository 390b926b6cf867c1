package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/hostlaunch/install"
	"github.com/airvsx/airvsx/index"
)

type uninstallOptions struct {
	extensions string
	force      bool
	json       bool
}

func newUninstallCommand(g *globals) *cobra.Command {
	var opts uninstallOptions
	cmd := &cobra.Command{
		Use:     "uninstall ID --extensions DIR",
		Example: `  airvsx uninstall redhat.vscode-yaml --extensions ~/.airvsx/extensions`,
		Short:   "Remove an installed extension, leaving no trace",
		Long: `Uninstall removes an extension's folder and its record in
DIR/installed.json. It refuses while another installed extension depends on
it (extensionDependencies), naming it; --force removes it anyway and
disables the dependents, with the reason recorded.

Exit status: 0 removed, 1 refused or not installed, 2 usage or I/O error.`,
		Args: namedArgs("uninstall", "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.extensions == "" {
				return usagef("uninstall: --extensions DIR is required")
			}
			id, err := index.ParseID(args[0])
			if err != nil {
				return &usageError{fmt.Errorf("uninstall: %w", err)}
			}
			r, err := install.Uninstall(cmd.Context(), opts.extensions, id, opts.force, install.DirOptions{Logger: g.logger()})
			if err != nil {
				return noExtensionsHint(err, opts.extensions)
			}
			if opts.json {
				return json.NewEncoder(g.stdout).Encode(map[string]any{"uninstalled": r.ID, "version": r.Version, "dir": r.Dir})
			}
			_, err = fmt.Fprintf(g.stdout, "uninstalled %s (removed %s)\n", r.String(), filepath.Join(opts.extensions, r.Dir))
			return err
		},
	}
	cmd.Flags().StringVar(&opts.extensions, "extensions", "", "the extensions directory")
	cmd.Flags().BoolVar(&opts.force, "force", false, "remove it even if installed extensions depend on it (they are disabled)")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print what was removed as JSON")
	return cmd
}
