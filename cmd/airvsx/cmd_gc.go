package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/prune"
)

type gcOptions struct {
	reg    registryFlags
	dryRun bool
	forget bool
	json   bool
}

func newGCCommand(g *globals) *cobra.Command {
	var opts gcOptions
	cmd := &cobra.Command{
		Use: "gc --registry PLACE",
		Example: `  airvsx gc --registry ./registry
  # what would be deleted, and the bytes
  airvsx gc --registry ./registry --dry-run`,
		Short: "Delete the blobs and tags no catalog refers to",
		Long: `Gc deletes from a registry what its current catalog does not refer to: tags
no entry pins, then blobs no pinned manifest refers to (left by
sync --prune, or by prune). It reads the catalog through the registry's own
signed metadata and needs no key: it signs nothing.

It keeps whatever an unfinished copy or sync is writing (the record such a
writer leaves in the registry until its catalog is signed; the report says
so: run that copy or sync again to finish it; --forget-pending drops the
record of one that will never be run again), and waits for readers (a
verify, install, site or ls) that opened a directory registry before it. A gc killed
at any point leaves a registry that verifies; run it again to finish.

A directory registry is collected. An OCI registry (docker://) is collected
through its DELETE API, which it must allow (the CNCF registry:
REGISTRY_STORAGE_DELETE_ENABLED=true); its own garbage-collect then frees its
disk. A git registry keeps every blob in its history: gc says so and deletes
nothing.

Exit status: 0 collected (or nothing to collect), 2 usage or I/O errors.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runGC(cmd, g, opts)
		},
	}
	opts.reg.add(cmd)
	f := cmd.Flags()
	f.BoolVarP(&opts.dryRun, "dry-run", "n", false, "print what would be deleted and the bytes, and write nothing")
	f.BoolVar(&opts.forget, "forget-pending", false, "drop the records of unfinished copies or syncs that will never be run again, and collect what they wrote (run them again from the start later)")
	f.BoolVar(&opts.json, "json", false, "print the report as JSON")
	return cmd
}

func runGC(cmd *cobra.Command, g *globals, opts gcOptions) error {
	if opts.reg.place == "" {
		return usagef("gc: --registry is required")
	}
	ctx := cmd.Context()
	opts.reg.net.logger = g.logger()
	st, err := openRegistryNet(ctx, opts.reg.place, !opts.dryRun, opts.reg.net)
	if err != nil {
		return err
	}
	defer st.Close()
	rep, err := prune.Collect(ctx, prune.CollectOptions{Store: st, DryRun: opts.dryRun, ForgetPending: opts.forget, Logger: g.logger(), Waiting: waitingForReaders(g, opts.reg.place)})
	if err != nil {
		return err
	}
	if opts.json {
		if err := g.printJSON(rep); err != nil {
			return err
		}
	} else {
		printCollect(g.stdout, rep)
	}
	if rep.Unsupported != "" && !strings.HasPrefix(rep.Unsupported, "git history") {
		return fmt.Errorf("%s: %s", opts.reg.place, rep.Unsupported)
	}
	return nil
}

// waitingForReaders says on stderr that gc waits for the readers of
// place to finish.
func waitingForReaders(g *globals, place string) func() {
	return func() {
		fmt.Fprintf(g.stderr, "airvsx: waiting for the readers of %s to finish (a verify, install, site or ls that opened it before)...\n", place)
	}
}

// printCollect prints what a collection did, or would do.
func printCollect(w io.Writer, rep *prune.CollectReport) {
	if rep == nil {
		return
	}
	if rep.Unsupported != "" {
		fmt.Fprintln(w, rep.Unsupported)
		return
	}
	for _, p := range rep.Pending {
		fmt.Fprintf(w, "kept: an unfinished %s (started %s) is writing into %s; run it again to finish it, then gc (or, if it will never be run again, gc --forget-pending)\n",
			p.Name, p.Started.Format("2006-01-02T15:04:05Z"), count(len(p.Repos), "repository", "repositories"))
	}
	for _, p := range rep.Forgotten {
		fmt.Fprintf(w, "forgotten: the unfinished %s (started %s) into %s; what it wrote is collected\n",
			p.Name, p.Started.Format("2006-01-02T15:04:05Z"), count(len(p.Repos), "repository", "repositories"))
	}
	if rep.PendingBlobs > 0 {
		fmt.Fprintf(w, "kept: %s (%s) no catalog refers to yet, for the unfinished writers\n", count(rep.PendingBlobs, "blob", "blobs"), index.FormatBytes(rep.PendingBytes))
	}
	tags, blobs, freed := count(len(rep.Untagged), "tag", "tags"), count(rep.Blobs, "blob", "blobs"), fmt.Sprintf("%s (%d bytes)", index.FormatBytes(rep.Freed), rep.Freed)
	if rep.DryRun {
		fmt.Fprintf(w, "dry run: gc would untag %s, delete %s, free %s; nothing written\n", tags, blobs, freed)
		return
	}
	if rep.Repos > 0 {
		fmt.Fprintf(w, "removed %s no entry is in any more\n", count(rep.Repos, "repository", "repositories"))
	}
	fmt.Fprintf(w, "gc: untagged %s, deleted %s, freed %s (catalog serial %d)\n", tags, blobs, freed, rep.Serial)
}
