package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/place"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/transfer"
)

// runApply is copy BUNDLE DST: the bundle (airvsx bundle) applied to the
// registry it was made for, which must exist.
func runApply(cmd *cobra.Command, g *globals, opts copyOptions, anchor trust.Anchor, state *trust.StateDir, bundle, dstPlace string) error {
	// A DST that does not parse is refused where it is opened, naming the
	// forms that work; until then its kind implies nothing.
	p, k, perr := place.Parse(dstPlace)
	parsed := perr == nil
	switch {
	case opts.repair:
		return usagef("copy: --repair goes with a registry SRC, not a bundle: repair DST from a full copy")
	case opts.signKey != "" && parsed && !k.CommitSigned && !k.SignsEntries:
		return usagef("copy: --sign-key goes with a git or docker:// DST")
	case opts.dryRun:
		return usagef("copy: --dry-run with a bundle: the bundle's %s lists what it holds", transfer.BundleManifestName)
	}
	if err := outsideRegistry("copy", "the bundle", bundle, dstPlace); err != nil {
		return err
	}
	if parsed && k.Local {
		if _, err := os.Stat(p.Path); err != nil {
			return fmt.Errorf("copy: %s: %w; a bundle applies to the registry it was made for: copy the full registry there first", dstPlace, err)
		}
	}
	o := transfer.Options{Anchor: anchor, State: state, Force: opts.force, ForceName: "--force", Source: bundle, Dest: dstPlace}
	if opts.signKey != "" {
		signer, err := trust.LoadSigner(opts.signKey, []byte(os.Getenv("COSIGN_PASSWORD")))
		if err != nil {
			return fmt.Errorf("copy: --sign-key: %w", err)
		}
		opts.net.signer = signer
		if parsed && k.CommitSigned {
			// verify checks DST's commits against the root the bundle
			// brings: Copy refuses a key that root does not trust before
			// it writes anything.
			var err error
			if o.SignKey, err = signer.PublicKey(); err != nil {
				return fmt.Errorf("copy: --sign-key %s: %w", opts.signKey, err)
			}
			o.SignKeyName = "--sign-key " + opts.signKey
		}
	} else if parsed && k.CommitSigned {
		return usagef("copy: a git DST commits the copy signed: pass --sign-key PREFIX.key")
	}
	dst, err := openRegistryNet(cmd.Context(), dstPlace, true, opts.net)
	if errors.Is(err, store.ErrLocked) {
		return fmt.Errorf("copy: another airvsx process (a copy or a sync) is writing %s; nothing was written: let it finish, then apply the bundle again (%w)", dstPlace, err)
	}
	if err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	defer dst.Close()
	prog := stderrProgress(g, opts.json)
	o.Logger = g.loggerBeside(prog)
	if prog.On() {
		o.Progress = func(p transfer.Progress) { prog.Printf("%s", copyProgressLine(p, 0)) }
	}
	rep, m, err := transfer.Apply(cmd.Context(), bundle, dst, o)
	prog.Done()
	if err != nil {
		return signKeyHint(copyWords(err), &opts.anchor)
	}
	if opts.json {
		return g.printJSON(rep)
	}
	fmt.Fprintf(g.stdout, "applied bundle %s to %s: %s → serial %d (%s)\n", bundle, dstPlace, m.From, rep.Serial, rep.Digest)
	if err := writeCopyReport(g, rep); err != nil {
		return err
	}
	if rep.Dropped > 0 {
		_, err = fmt.Fprintf(g.stdout, "%s the new catalog no longer lists (pruned on the connected side): airvsx gc --registry %s frees them\n",
			count(rep.Dropped, "entry", "entries"), dstPlace)
	}
	return err
}
