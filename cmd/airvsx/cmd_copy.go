package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/place"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/transfer"
)

type copyOptions struct {
	anchor  anchorFlags
	net     registryNet // --insecure, --allow-insecure-remote, --ca-file (docker:// places)
	signKey string
	force   bool
	dryRun  bool
	repair  bool
	parents bool
	json    bool
}

func newCopyCommand(g *globals) *cobra.Command {
	var opts copyOptions
	cmd := &cobra.Command{
		Use: "copy SRC DST (--root root.json | --key PREFIX.pub)",
		Example: `  # carry a registry to the USB stick; a second copy moves only what is new
  airvsx copy ./registry /media/usb/registry --key airvsx.pub
  # see what would move, and write nothing
  airvsx copy -n ./registry /media/usb/registry --key airvsx.pub
  # verify said a copy was damaged: read every blob it holds, replace the damaged ones
  airvsx copy --repair /media/usb/registry ./registry --key airvsx.pub
  # on the air-gapped side, into the internal OCI registry (signed with cosign too)
  airvsx copy /media/usb/registry docker://registry.internal:5000/vsx --key airvsx.pub --sign-key airvsx.key`,
		Short: "Copy a registry from one place to another, verifying it on the way",
		Long: `Copy copies the registry at SRC to DST (each a directory, DIR, a git
repository, git:PATH[#REF], or an OCI registry, docker://HOST[:PORT]/PREFIX;
a git DST commits the copy as one commit, signed with --sign-key, the
operator's PREFIX.key, and a docker:// DST gets a cosign signature of each
entry from --sign-key when it is given; a git DST's --sign-key must be a
key SRC's root trusts, else the copy stops before DST is opened, naming the
key the root trusts). Only what DST lacks moves: blobs
by digest, tags, and the metadata, written last, so that DST is at every
moment either its previous state or the new one. A copy
that is stopped (or killed) is completed by running it again, which moves
only what did not arrive.

SRC is verified on the way, from the same anchor as verify (--root or
--key, and the state directory): its trust chain and catalog first, then
every manifest, then every blob, hashed while it is copied (each source
byte is read once). A blob that is not what its digest says is named and
stops the copy before DST's catalog changes. The package rules (safe zip,
upstream signatures) are verify's: run airvsx verify on DST for those.

Copy refuses a DST signed by another root (another operator's registry),
one whose catalog serial is newer than SRC's (that would be a rollback) or
of the same serial with another catalog, and one whose metadata does not
verify, naming both sides; --force overwrites it.

A blob DST already holds is taken as present by its digest and size, unread.
--repair reads each one too (every byte of DST), and replaces one whose bytes
are not what its digest says from SRC; the damaged file is kept in DST's
quarantine, never deleted. Only a directory DST can be repaired; any other
holding a damaged blob is refused: copy into a new place.

Before it writes, copy checks that DST's file system has the space the
copy needs (a directory DST), and stops with nothing written if not.

A new directory or git DST is made in a parent directory that exists:
when /media/usb is missing (the stick is not mounted), copy to
/media/usb/registry refuses rather than fill the local disk. --parents
creates the missing parents.

--dry-run prints what would move (repositories, blobs, bytes, whether it
fits, and with --repair the damaged blobs) and writes nothing.

Exit status: 0 copied, 1 SRC does not verify or DST was refused, 2 usage or
I/O errors.`,
		Args: namedArgs("copy", "SRC", "DST"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCopy(cmd, g, opts, args[0], args[1])
		},
	}
	opts.anchor.add(cmd, true)
	opts.net.add(cmd, true)
	f := cmd.Flags()
	f.StringVar(&opts.signKey, "sign-key", "", "with a git DST: the key (PREFIX.key, password in COSIGN_PASSWORD) that signs the commit; with a docker:// DST, optional: it signs each entry (cosign)")
	f.BoolVar(&opts.force, "force", false, "overwrite a DST signed by another root, holding a newer catalog, or whose metadata does not verify")
	f.BoolVarP(&opts.dryRun, "dry-run", "n", false, "print what would move and write nothing")
	f.BoolVar(&opts.parents, "parents", false, "create DST's parent directories when they do not exist (default: refuse, as when the USB stick is not mounted)")
	f.BoolVar(&opts.repair, "repair", false, "also read every blob DST holds, and replace the damaged ones from SRC (kept in DST's quarantine)")
	f.BoolVar(&opts.json, "json", false, "print the report as JSON")
	return cmd
}

func runCopy(cmd *cobra.Command, g *globals, opts copyOptions, srcPlace, dstPlace string) error {
	if err := distinctPlaces(srcPlace, dstPlace); err != nil {
		return err
	}
	anchor, state, err := opts.anchor.resolve("copy")
	if err != nil {
		return err
	}
	if transfer.IsBundle(srcPlace) {
		return runApply(cmd, g, opts, anchor, state, srcPlace, dstPlace)
	}
	src, err := openRegistryNet(cmd.Context(), srcPlace, false, opts.net)
	if err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	defer src.Close()
	o := transfer.Options{Anchor: anchor, State: state, Force: opts.force, ForceName: "--force", DryRun: opts.dryRun, Repair: opts.repair,
		Source: srcPlace, Dest: dstPlace}
	var signer signature.Signer
	if _, k, err := place.Parse(dstPlace); err == nil && k.SignsEntries && opts.signKey != "" && !opts.dryRun {
		// The cosign signatures of a docker:// DST's entries are for
		// stock cosign verify; airvsx verify does not read them, so the
		// key need not be one the registry's root trusts.
		if signer, err = trust.LoadSigner(opts.signKey, []byte(os.Getenv("COSIGN_PASSWORD"))); err != nil {
			return fmt.Errorf("copy: --sign-key: %w", err)
		}
	} else if err == nil && k.CommitSigned && !opts.dryRun {
		if opts.signKey == "" {
			return usagef("copy: a git DST commits the copy signed: pass --sign-key PREFIX.key")
		}
		if signer, err = trust.LoadSigner(opts.signKey, []byte(os.Getenv("COSIGN_PASSWORD"))); err != nil {
			return fmt.Errorf("copy: --sign-key: %w", err)
		}
		// verify checks DST's commits against the root it will carry,
		// SRC's: a key that root does not trust is refused now, before
		// DST is opened (a new one would be created).
		if o.SignKey, err = signer.PublicKey(); err != nil {
			return fmt.Errorf("copy: --sign-key %s: %w", opts.signKey, err)
		}
		o.SignKeyName = "--sign-key " + opts.signKey
		if err := transfer.CheckSignKey(cmd.Context(), src, o); err != nil {
			return signKeyHint(err, &opts.anchor)
		}
	} else if opts.signKey != "" {
		return usagef("copy: --sign-key goes with a git or docker:// DST")
	}
	opts.net.signer = signer
	if err := checkDestParent(dstPlace, opts.parents, opts.dryRun); err != nil {
		return err
	}
	dst, err := openCopyDest(cmd.Context(), dstPlace, opts.dryRun, opts.net)
	if errors.Is(err, store.ErrLocked) {
		return fmt.Errorf("copy: another airvsx process (a copy or a sync) is writing %s; nothing was written: let it finish, then run the copy again (%w)", dstPlace, err)
	}
	if err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	if dst != nil {
		defer dst.Close()
	}
	prog := stderrProgress(g, opts.json)
	logger := g.loggerBeside(prog)
	o.Logger = logger
	if prog.On() {
		var blobsStart time.Time // when the blobs began to move
		o.Progress = func(p transfer.Progress) {
			if p.Step == "blobs" && blobsStart.IsZero() {
				blobsStart = time.Now()
			}
			prog.Printf("%s", copyProgressLine(p, time.Since(blobsStart)))
		}
	}
	if p, k, err := place.Parse(dstPlace); err == nil && k.FreeSpaceAt != nil && dst == nil {
		// A dry run to a place that does not exist yet: the space of the
		// file system it would be made on.
		o.FreeSpace = func() (int64, int64, error) { return k.FreeSpaceAt(p) }
	}
	rep, err := transfer.Copy(cmd.Context(), src, dst, o)
	err = copyWords(err)
	prog.Done()
	if !opts.dryRun {
		err = abandon(cmd.Context(), dst, dstPlace, "copy", err)
	}
	if err != nil {
		err = signKeyHint(err, &opts.anchor)
	}
	if errors.Is(err, store.ErrDamagedLayout) && !opts.repair {
		return fmt.Errorf("%w\n  %s's layout files are damaged: this repairs them, keeping the damaged files in its quarantine:\n  %s",
			err, dstPlace, repairHint(srcPlace, dstPlace, &opts.anchor))
	}
	if err != nil {
		return err
	}
	if opts.json {
		return g.printJSON(rep)
	}
	return writeCopyReport(g, rep)
}

// openCopyDest opens DST for writing (a directory is created), or for a
// dry run read-only; a dry run to a directory that does not exist yet
// gives nil: an empty place.
func openCopyDest(ctx context.Context, where string, dryRun bool, n registryNet) (store.Store, error) {
	if !dryRun {
		return openRegistryNet(ctx, where, true, n)
	}
	if p, k, err := place.Parse(where); err == nil && k.Local {
		if _, err := os.Stat(p.Path); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
	}
	return openRegistryNet(ctx, where, false, n)
}

// checkDestParent refuses a directory or git DST that does not exist in
// a parent directory that does not exist either: a medium not mounted at
// its mount point, where the copy would otherwise fill the local disk.
// With parents, the parent directories are created (not in a dry run,
// which writes nothing).
func checkDestParent(where string, parents, dryRun bool) error {
	p, k, err := place.Parse(where)
	if err != nil || !k.Local {
		return nil // a place parsed again, and refused, where it is opened
	}
	if _, err := os.Lstat(p.Path); err == nil {
		return nil // DST exists: opened (or refused) as it is
	}
	parent := filepath.Dir(filepath.Clean(p.Path))
	_, err = os.Stat(parent)
	switch {
	case err == nil:
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("copy: %s's parent directory %s: %w", where, parent, err)
	case !parents:
		return fmt.Errorf("copy: cannot create %s: its parent directory %s does not exist (%w); nothing was written: mount the medium (a USB stick) or check the path, or pass --parents to create it",
			where, parent, err)
	case dryRun:
		return nil
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("copy: create %s's parent directory: %w", where, err)
	}
	return nil
}

// copyProgressLine is the text of the progress line; elapsed is how long
// the blobs have been moving, from which their rate and the time left are
// told once there is a second of it to tell from.
func copyProgressLine(p transfer.Progress, elapsed time.Duration) string {
	switch p.Step {
	case "plan":
		if p.PlannedEntries == 0 {
			return "copy: checking the source's trust chain"
		}
		return fmt.Sprintf("copy: reading manifests %d/%d", p.Entries, p.PlannedEntries)
	case "blobs":
		line := fmt.Sprintf("copy: %d/%d blobs, %s of %s", p.Blobs, p.PlannedBlobs, index.FormatBytes(p.Bytes), index.FormatBytes(p.PlannedBytes))
		if elapsed < time.Second || p.Bytes <= 0 {
			return line
		}
		rate := float64(p.Bytes) / elapsed.Seconds()
		left := time.Duration(float64(p.PlannedBytes-p.Bytes) / rate * float64(time.Second))
		return fmt.Sprintf("%s, %s/s, about %s left", line, index.FormatBytes(int64(rate)), left.Round(time.Second))
	}
	return fmt.Sprintf("copy: %s %d/%d", p.Step, p.Blobs, p.PlannedBlobs)
}

// writeCopyReport prints what moved (or would move).
func writeCopyReport(g *globals, rep *transfer.Report) error {
	w := g.stdout
	for _, f := range rep.Forced {
		fmt.Fprintf(w, "forced: %s\n", f)
	}
	if rep.Stray > 0 {
		more := ""
		if rep.Stray > len(rep.StrayNames) {
			more = ", …"
		}
		fmt.Fprintf(w, "left out: %d files in %s's metadata/ that its signed metadata does not name (%s%s)\n", rep.Stray, rep.Source, strings.Join(rep.StrayNames, ", "), more)
	}
	for _, d := range rep.Damaged {
		switch {
		case rep.DryRun:
			fmt.Fprintf(w, "damaged: %s (would be replaced)\n", d.Problem)
		case d.Quarantine != "":
			fmt.Fprintf(w, "repaired: %s (the damaged file is kept in %s)\n", d.Problem, d.Quarantine)
		}
	}
	if rep.DryRun {
		fmt.Fprintf(w, "dry run: would copy catalog serial %d (%s) from %s to %s: %d files, %s (%d blobs, %d tags, %d metadata files); %d blobs already there\n",
			rep.Serial, rep.Digest, rep.Source, rep.Dest, rep.Files(), index.FormatBytes(rep.Bytes), rep.Blobs, rep.Tags, len(rep.Metadata), rep.Present)
		fmt.Fprintf(w, "%s: %d to copy, %d already there\n", catalogHolds(rep), rep.Blobs, rep.Present)
		if rep.Needs > rep.DestFree {
			fmt.Fprintf(w, "it does not fit: %s has %s free; the copy needs about %s\n", rep.Dest, index.FormatBytes(rep.DestFree), index.FormatBytes(rep.Needs))
		}
		if len(rep.Repositories) == 0 {
			return nil
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "REPOSITORY\tBLOBS\tBYTES")
		for _, r := range rep.Repositories {
			fmt.Fprintf(tw, "%s\t%d\t%d\n", r.Repo, r.Blobs, r.Bytes)
		}
		return tw.Flush()
	}
	if rep.Files() == 0 {
		_, err := fmt.Fprintf(w, "%s already holds catalog serial %d (%s): nothing to copy (%d blobs present)\n", rep.Dest, rep.Serial, rep.Digest, rep.Present)
		return err
	}
	fmt.Fprintf(w, "copied catalog serial %d (%s) from %s to %s: %d files, %s (%d blobs, %d tags, %d metadata files); %d blobs already there\n",
		rep.Serial, rep.Digest, rep.Source, rep.Dest, rep.Files(), index.FormatBytes(rep.Bytes), rep.Blobs, rep.Tags, len(rep.Metadata), rep.Present)
	_, err := fmt.Fprintf(w, "%s: %d copied, %d already there\n", catalogHolds(rep), rep.Blobs, rep.Present)
	return err
}

// catalogHolds is what the copied catalog's entries hold, counted as
// verify's summary counts it ("7 entries, 60 blobs hashed (77.0 KiB)"):
// every blob once, however many entries share it.
func catalogHolds(rep *transfer.Report) string {
	if rep.Held > 0 {
		return fmt.Sprintf("catalog serial %d holds %s, %s held already; the %s hold %s (%s)", rep.Serial, count(rep.Entries, "entry", "entries"),
			count(rep.Held, "entry", "entries"), count(rep.Entries-rep.Held, "new entry", "new entries"), count(rep.CatalogBlobs, "blob", "blobs"), index.FormatBytes(rep.CatalogBytes))
	}
	return fmt.Sprintf("catalog serial %d holds %s, %s (%s)", rep.Serial, count(rep.Entries, "entry", "entries"),
		count(rep.CatalogBlobs, "blob", "blobs"), index.FormatBytes(rep.CatalogBytes))
}

// signKeyHint adds to a refused --sign-key, when the anchor is a key
// (--key PREFIX.pub) the registry's root trusts, that its private half is
// the key to sign with.
func signKeyHint(err error, a *anchorFlags) error {
	var ke *trust.KeyError
	if !errors.As(err, &ke) || a.key == "" {
		return err
	}
	v, lerr := trust.LoadVerifier(a.key)
	if lerr != nil {
		return err
	}
	pub, lerr := v.PublicKey()
	if lerr != nil {
		return err
	}
	id, lerr := trust.KeyID(pub)
	if lerr != nil || !slices.Contains(ke.Trusted, id) {
		return err
	}
	return fmt.Errorf("%w\n  --key %s is that key's public half: sign with its private key (%s)", err, a.key, strings.TrimSuffix(a.key, trust.PubSuffix)+trust.KeySuffix)
}
