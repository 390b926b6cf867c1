package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/hostlaunch/install"
)

type listOptions struct {
	extensions string
	json       bool
}

func newListCommand(g *globals) *cobra.Command {
	var opts listOptions
	cmd := &cobra.Command{
		Use:     "list --extensions DIR",
		Example: `  airvsx list --extensions ~/.airvsx/extensions`,
		Short:   "List the installed extensions and their state",
		Long: `List shows every extension recorded in DIR/installed.json: version, platform,
state, source, effective capabilities with the policy rule that grants each,
eager ("*") activation and the time of its last activation, and how the
last run isolated the extensions (the kernel sandbox's layers, or DEGRADED
when it ran with --insecure-degraded-isolation), and the extension hosts
run starts: one per grant, extensions sharing one only when their grants
are equal. Each record must carry the
seal airvsx wrote it with (HMAC-SHA256 under the key install-seal.key in the
user's state directory, $XDG_STATE_HOME/airvsx or ~/.local/state/airvsx): a
record something else added or changed (an extension that gave itself a
grant), one written by an older airvsx or on another machine, and every
record when there is no key, is shown disabled, without its grants, with a
warning; installing it again seals it. Every enabled extension's files are
checked against the tree hash recorded at install: one that changed is shown
disabled, with a warning naming the changed file.

First, list puts right what an install or uninstall that was killed left in
DIR (unless one is running there): an extension folder left in its staging
folder (DIR/.install-*, DIR/.uninstall-*) that installed.json still records
is moved back into place, then the staging folders are removed; each is
logged as a warning.

The extension control lists (kill lists) the directory enforces are
first read again from the registry they came from, when it is on this
machine and carries newer ones (after a copy); every installed extension
they name is flagged: malicious, deprecated (with the replacement), and
whether run refuses it or the policy's control.allow overrides the list.

Exit status: 0 listed, 2 usage or I/O error (a damaged installed.json).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.extensions == "" {
				return usagef("list: --extensions DIR is required")
			}
			// What a killed install or uninstall left is put right first
			// (logged as warnings); a directory that cannot be tidied is
			// still listed.
			log := g.logger()
			_, terr := install.Tidy(cmd.Context(), opts.extensions, install.DirOptions{Logger: log})
			l, err := install.Load(cmd.Context(), opts.extensions, install.DirOptions{})
			if err != nil {
				return fmt.Errorf("list: %w", noExtensionsHint(err, opts.extensions))
			}
			if terr != nil {
				log.Warn("tidying the extensions directory", "dir", opts.extensions, "err", terr)
			}
			for _, w := range l.Warnings {
				fmt.Fprintf(g.stderr, "airvsx: warning: %s\n", w)
			}
			flags, err := controlFlags(cmd.Context(), log, opts.extensions, l)
			if err != nil {
				return fmt.Errorf("list: %w", err)
			}
			if opts.json {
				warnings := l.Warnings
				if warnings == nil {
					warnings = []string{}
				}
				return g.printJSON(struct {
					Dir        string             `json:"dir"`
					Extensions []install.Listing  `json:"extensions"`
					Hosts      []hostGroup        `json:"hosts"`
					Warnings   []string           `json:"warnings"`
					Isolation  *install.Isolation `json:"isolation"`
					Control    []controlFlag      `json:"control"`
				}{l.Dir, l.List(), hostGroups(l), warnings, l.Isolation, flags})
			}
			if err := l.WriteText(g.stdout); err != nil {
				return err
			}
			writeControlFlags(g.stdout, flags)
			return writeHostGroups(g.stdout, hostGroups(l))
		},
	}
	cmd.Flags().StringVar(&opts.extensions, "extensions", "", "the extensions directory")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the listing as JSON")
	return cmd
}

// noExtensionsHint adds to an error about an extensions directory that
// does not exist the command that makes one.
func noExtensionsHint(err error, dir string) error {
	if _, serr := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) || !errors.Is(serr, fs.ErrNotExist) {
		return err
	}
	return fmt.Errorf("%w\n  nothing is installed there yet (check the path); install makes it: %s", err,
		commandLine("airvsx", "install", "ID", "--registry", "PLACE", "--key", "PREFIX.pub", "--extensions", dir))
}
