package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/place"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/internal/safefile"
	"github.com/airvsx/airvsx/internal/strictjson"
	"github.com/airvsx/airvsx/transfer"
)

type bundleOptions struct {
	registry registryFlags
	anchor   anchorFlags
	since    string
	out      string
	json     bool
}

func newBundleCommand(g *globals) *cobra.Command {
	var opts bundleOptions
	cmd := &cobra.Command{
		Use: "bundle --registry SRC --since STATE --out DIR (--root root.json | --key PREFIX.pub)",
		Example: `  # on the far side, after each apply: note what it holds, onto the stick
  airvsx verify --registry /srv/registry --key airvsx.pub --save-state /media/usb/far-state.json
  # on the connected side, after a sync: only what the far side lacks
  airvsx bundle --registry ./registry --since /media/usb/far-state.json --out /media/usb/bundle-42 --key airvsx.pub
  # on the far side: apply it
  airvsx copy /media/usb/bundle-42 /srv/registry --key airvsx.pub`,
		Short: "Write what a registry at an earlier state lacks, for a stick smaller than the registry",
		Long: `Bundle writes into DIR only what a copy of SRC at an earlier state (the far
side, which cannot be reached from here) lacks: the blobs of the entries
added since, and the metadata of the catalogs signed since (with the
sharded catalog, only the changed shards), then airvsx-bundle.txt, the
manifest: every file with its size and sha256, and the step, from the far
side's catalog serial to SRC's. airvsx copy DIR REGISTRY applies it.

STATE is what the far side holds:
  - a state file, as verify --save-state writes it on the far side (the
    catalog serial and digest, the TUF versions and the registry's
    identity): the exact difference;
  - a registry place, such as a full copy of the far side: the same;
  - a catalog serial, N: the same entries and shards; the TUF files are
    worked out from SRC's history, and every root after the first is
    carried.

SRC is verified first from the anchor, as copy verifies a source, and
every blob is read through its verifying reader. Every name is one FAT32
and exFAT keep as it is (no case-only difference, no character Windows
refuses) and no file is over 4 GiB. DIR must be new or empty; the manifest
is written last, so a bundle whose writing was cut short is refused by
copy, naming the missing files.

Exit status: 0 written (or the far side is already up to date), 1 SRC does
not verify or STATE is not in its history, 2 usage or I/O errors.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBundle(cmd, g, opts) },
	}
	opts.registry.add(cmd)
	opts.anchor.add(cmd, true)
	f := cmd.Flags()
	f.StringVar(&opts.since, "since", "", "what the far side holds: its state file (verify --save-state), a registry place, or a catalog serial")
	f.StringVar(&opts.out, "out", "", "the directory to write the bundle into (new or empty), on the stick")
	f.BoolVar(&opts.json, "json", false, "print the report (the manifest included) as JSON")
	return cmd
}

func runBundle(cmd *cobra.Command, g *globals, opts bundleOptions) error {
	switch {
	case opts.registry.place == "":
		return usagef("bundle: --registry SRC is required")
	case opts.since == "":
		return usagef("bundle: --since STATE is required: the far side's state file (verify --save-state), a registry place, or a catalog serial")
	case opts.out == "":
		return usagef("bundle: --out DIR is required: a new or empty directory on the stick")
	}
	if err := outsideRegistry("bundle", "--out", opts.out, opts.registry.place); err != nil {
		return err
	}
	anchor, state, err := opts.anchor.resolve("bundle")
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	since, err := resolveSince(ctx, opts.since, opts.registry.net)
	if err != nil {
		return err
	}
	src, err := opts.registry.open(ctx)
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	defer src.Close()
	prog := stderrProgress(g, opts.json)
	o := transfer.BundleOptions{Anchor: anchor, State: state, Source: opts.registry.place, Out: opts.out, Logger: g.loggerBeside(prog),
		FreeSpace: func() (int64, int64, error) { return freeSpaceNear(opts.out) }}
	if prog.On() {
		o.Progress = func(done, total int, n, totalBytes int64) {
			prog.Printf("bundle: %d/%d files, %s of %s", done, total, index.FormatBytes(n), index.FormatBytes(totalBytes))
		}
	}
	rep, err := transfer.Bundle(ctx, src, since, opts.out, o)
	prog.Done()
	if err != nil {
		return err
	}
	if opts.json {
		return g.printJSON(rep)
	}
	w := g.stdout
	if rep.UpToDate {
		_, err := fmt.Fprintf(w, "the far side already holds %s's catalog %s: no bundle written\n", rep.Source, rep.Manifest.To)
		return err
	}
	m := rep.Manifest
	fmt.Fprintf(w, "bundle %s: %s → serial %d: %s, %d files, %s (%d blobs, %s; %d metadata files, %s)\n",
		rep.Out, m.From, m.To.Serial, count(rep.Entries, "new entry", "new entries"), len(m.Files), index.FormatBytes(m.Bytes()),
		rep.Blobs, index.FormatBytes(rep.BlobBytes), rep.Metadata, index.FormatBytes(rep.MetadataBytes))
	_, err = fmt.Fprintf(w, "apply it on the far side: airvsx copy %s REGISTRY %s\n", rep.Out, anchorArgs(&opts.anchor))
	return err
}

// anchorArgs is the anchor flag as the user gave it, for a hint.
func anchorArgs(a *anchorFlags) string {
	if a.root != "" {
		return "--root " + a.root
	}
	return "--key " + a.key
}

// freeSpaceNear is the free space of the file system dir is on, or would
// be made on (its nearest existing parent's, as for a new registry).
func freeSpaceNear(dir string) (int64, int64, error) {
	p, k, err := place.Parse(dir)
	if err != nil || k.FreeSpaceAt == nil {
		return 0, 0, errors.ErrUnsupported
	}
	return k.FreeSpaceAt(p)
}

// maxStateFile caps a state file given to --since.
const maxStateFile = 1 << 20

// resolveSince reads --since: a catalog serial, a state file, or a
// registry place (read through its own chain, as copy reads its DST).
func resolveSince(ctx context.Context, s string, n registryNet) (transfer.Since, error) {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		if v < 0 {
			return transfer.Since{}, usagef("bundle: --since %s: a serial is 0 or more", s)
		}
		return transfer.Since{Serial: v}, nil
	}
	if fi, err := os.Stat(s); err == nil && !fi.IsDir() {
		data, err := safefile.ReadFile(s, maxStateFile)
		if err != nil {
			return transfer.Since{}, fmt.Errorf("bundle: --since: %w", err)
		}
		var st trust.RegistryState
		if err := strictjson.Unmarshal(data, &st); err != nil || st.Format != trust.StateFormat || len(st.Registry) != 64 {
			return transfer.Since{}, usagef("bundle: --since %s: not a state file as verify --save-state writes it (%v)", s, err)
		}
		return transfer.SinceState(st), nil
	}
	far, err := openRegistryNet(ctx, s, false, n)
	if err != nil {
		return transfer.Since{}, fmt.Errorf("bundle: --since %s: not a serial, a state file or a registry: %w", s, err)
	}
	defer far.Close()
	since, err := transfer.SinceRegistry(ctx, far)
	if err != nil {
		return transfer.Since{}, fmt.Errorf("bundle: --since %s: %w", s, err)
	}
	return since, nil
}
