package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/ocistore"
	"github.com/airvsx/airvsx/index/store/place"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/internal/certpool"
	"github.com/airvsx/airvsx/internal/safefile"
)

// placeHelp is how flag help names a place.
const placeHelp = "the registry: a directory (DIR), a git repository (git:PATH[#REF], one signed commit per change) or an OCI registry (docker://HOST[:PORT]/PREFIX)"

// registryNet are the flags of a registry reached over the network (a
// docker:// place; they change nothing for a directory or git) and the
// writer's signer.
type registryNet struct {
	insecure, allowInsecureRemote bool
	caFile                        string
	alsoDial                      []string // hosts besides the place's: a token service, blob storage
	// signer, when set, signs a writer's changes (sync's key): each
	// commit of a git store, and each entry manifest tagged in a
	// docker:// registry with a cosign signature.
	signer signature.Signer
	logger *slog.Logger
}

// add registers --insecure and --allow-insecure-remote, and --ca-file
// when withCA (sync has its own, which trusts its CA bundle for both).
func (n *registryNet) add(cmd *cobra.Command, withCA bool) {
	f := cmd.Flags()
	f.BoolVar(&n.insecure, "insecure", false, "reach a docker:// registry over plain HTTP: only at a loopback or private address, unless --allow-insecure-remote")
	f.BoolVar(&n.allowInsecureRemote, "allow-insecure-remote", false, "with --insecure, allow plain HTTP to a docker:// registry at any address")
	f.StringSliceVar(&n.alsoDial, "also-dial", nil, "a host (HOST or HOST:PORT, repeatable) a docker:// registry may send us to besides its own: its token service or blob storage (default: only the registry's host)")
	if withCA {
		f.StringVar(&n.caFile, "ca-file", "", "extra PEM CA bundle to trust for a docker:// registry (default: the system roots)")
	}
}

// registryFlags are the flags of a command that reads one registry:
// --registry PLACE, and the network flags of a docker:// place.
type registryFlags struct {
	place string
	net   registryNet
}

// add registers --registry and the network flags, --ca-file included.
func (r *registryFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&r.place, "registry", "", placeHelp)
	r.net.add(cmd, true)
}

// open opens the registry for reading.
func (r *registryFlags) open(ctx context.Context) (store.Store, error) {
	return openRegistryNet(ctx, r.place, false, r.net)
}

// maxCABundle caps a --ca-file.
const maxCABundle = 4 << 20

// openRegistry opens the registry at a place (and, for writers, creates a
// directory registry) with no network flags. Every command goes through
// it or openRegistryNet, so every command accepts the same forms
// (place.Parse).
func openRegistry(place string, write bool) (store.Store, error) {
	return openRegistryNet(context.Background(), place, write, registryNet{})
}

// openRegistryNet is openRegistry with the network flags of a docker://
// place and the writer's signer. A docker:// registry is the only store
// that dials, and only its own host.
func openRegistryNet(ctx context.Context, where string, write bool, n registryNet) (store.Store, error) {
	p, k, err := place.Parse(where)
	if err != nil {
		return nil, &usageError{err}
	}
	o := place.Options{Write: write, Signer: n.signer, Logger: n.logger,
		Net: place.NetOptions{Insecure: n.insecure, AllowInsecureRemote: n.allowInsecureRemote, AlsoDial: n.alsoDial}}
	if n.caFile != "" && k.Network {
		pem, err := safefile.ReadFile(n.caFile, maxCABundle)
		if err != nil {
			return nil, fmt.Errorf("--ca-file: %w", err)
		}
		pool, ok := certpool.WithSystem(pem)
		if !ok {
			return nil, &usageError{fmt.Errorf("--ca-file %s: no PEM certificate in it", n.caFile)}
		}
		o.Net.RootCAs = pool
	}
	st, err := place.Open(ctx, p, o)
	if ne := (*place.NotExistError)(nil); errors.As(err, &ne) {
		return nil, fmt.Errorf("%w (%s, or create one with airvsx sync)", err, ne.Kind.MissingHint)
	}
	if errors.Is(err, ocistore.ErrInsecureRemote) {
		return nil, &usageError{insecureRemoteWords(err)}
	}
	return st, err
}

// abandon is what a writer (sync, copy) whose run failed with err does
// with the registry st at place it opened: one this run created that
// still holds nothing is removed (store.Discarder), so a failed first sync
// or copy leaves nothing; one that holds what was stored but no signed
// catalog yet is kept, and the error says to run the command again to
// finish it. verb is the command ("sync", "copy").
func abandon(ctx context.Context, st store.Store, place, verb string, err error) error {
	if err == nil || st == nil {
		return err
	}
	if d, ok := store.As[store.Discarder](st); ok {
		removed, derr := d.Discard()
		if derr != nil {
			return fmt.Errorf("%w; removing the new registry %s, which holds nothing, failed too: %w", err, place, derr)
		}
		if removed {
			return err
		}
	}
	ictx := context.WithoutCancel(ctx) // also after an interrupt
	if _, rerr := st.ReadMetadata(ictx, trust.TimestampFile, trust.MaxTimestampBytes); errors.Is(rerr, fs.ErrNotExist) {
		return &incompleteError{err: err, place: place, verb: verb}
	}
	return err
}

// incompleteError is a writer's failure that left a registry with no
// signed catalog yet.
type incompleteError struct {
	err         error
	place, verb string
}

func (e *incompleteError) Error() string {
	return fmt.Sprintf("%v\n  %s has no signed catalog yet, so nothing can use it: run the %s again to finish it (what this run stored is kept, and not moved again)", e.err, e.place, e.verb)
}

func (e *incompleteError) Unwrap() error { return e.err }

// anchorFlags are the trust flags of every command that checks a
// registry's signatures: --root or --key, and the state directory.
type anchorFlags struct {
	root, key string
	state     string
	noState   bool
}

// add registers the flags; withState adds --state and --no-state.
func (a *anchorFlags) add(cmd *cobra.Command, withState bool) {
	f := cmd.Flags()
	f.StringVar(&a.root, "root", "", "the pinned trust anchor: a root.json obtained out of band")
	f.StringVar(&a.key, "key", "", "the publisher's public key (PREFIX.pub): the registry's first root must be signed by it")
	if withState {
		f.StringVar(&a.state, "state", "", "the state directory (default: the user's state directory for airvsx)")
		f.BoolVar(&a.noState, "no-state", false, "read and record no state: rollback beyond what the registry shows goes unnoticed")
	}
}

// given reports whether --root or --key was given.
func (a *anchorFlags) given() bool { return a.root != "" || a.key != "" }

// anyGiven reports whether any of the flags was given: an anchor, --state
// or --no-state (the commands that also take a local FILE.vsix refuse them
// with it).
func (a *anchorFlags) anyGiven() bool { return a.given() || a.state != "" || a.noState }

// args returns the anchor and state flags as the user gave them, one
// argument each, for hints.
func (a *anchorFlags) args() []string {
	var args []string
	if a.root != "" {
		args = append(args, "--root", a.root)
	}
	if a.key != "" {
		args = append(args, "--key", a.key)
	}
	if a.state != "" {
		args = append(args, "--state", a.state)
	}
	if a.noState {
		args = append(args, "--no-state")
	}
	return args
}

// resolve loads the anchor and opens the state directory (nil with
// --no-state). verb names the command in errors.
func (a *anchorFlags) resolve(verb string) (trust.Anchor, *trust.StateDir, error) {
	if a.root != "" && a.key != "" || !a.given() {
		return trust.Anchor{}, nil, usagef("%s: give exactly one trust anchor: --root root.json or --key PREFIX.pub", verb)
	}
	if a.noState && a.state != "" {
		return trust.Anchor{}, nil, usagef("%s: --state and --no-state exclude each other", verb)
	}
	anchor, err := trust.LoadAnchor(a.root, a.key)
	if err != nil {
		return trust.Anchor{}, nil, fmt.Errorf("%s: trust anchor: %w", verb, anchorWords(err))
	}
	if anchor.Root != nil {
		anchor.RootName = pinnedRootName
	}
	switch {
	case a.noState:
		return anchor, nil, nil
	case a.state != "":
		return anchor, trust.OpenStateDir(a.state), nil
	}
	d, err := trust.DefaultStateDir()
	if err != nil {
		return trust.Anchor{}, nil, fmt.Errorf("%s: %w (pass --state DIR or --no-state)", verb, err)
	}
	return anchor, trust.OpenStateDir(d), nil
}

// distinctPlaces refuses a copy whose SRC and DST are one registry, or
// one of which lies inside the other's directory (the copy would write
// into the registry it reads, and leave a stray directory in it). Two
// refs of one git repository are two registries.
func distinctPlaces(src, dst string) error {
	s, sk, serr := place.Parse(src)
	d, dk, derr := place.Parse(dst)
	if serr != nil || derr != nil {
		return nil // opening them says what is wrong
	}
	if !sk.Local || !dk.Local {
		if s.Kind == d.Kind && strings.EqualFold(s.Host, d.Host) && s.Prefix == d.Prefix {
			return usagef("copy: %s and %s are the same registry", src, dst)
		}
		return nil
	}
	sp, dp := realPath(s.Path), realPath(d.Path)
	switch {
	case sp == dp && s.Kind == d.Kind && s.Ref != d.Ref:
		return nil
	case sp == dp:
		return usagef("copy: %s and %s are the same registry", src, dst)
	case within(dp, sp):
		return usagef("copy: %s is inside %s: the copy would write into the registry it reads; choose a DST outside it", dst, src)
	case within(sp, dp):
		return usagef("copy: %s is inside %s: the copy would write over the registry it reads; choose a DST that does not hold it", src, dst)
	}
	return nil
}

// outsideRegistry refuses an output directory (site's --out, install's
// --extensions) that is a local registry or lies inside one: what it
// writes would be stray files in the registry (verify's extra-file).
func outsideRegistry(cmd, flag, out, where string) error {
	p, k, err := place.Parse(where)
	if err != nil || !k.Local {
		return nil
	}
	if o, r := realPath(out), realPath(p.Path); o == r || within(o, r) {
		return usagef("%s: %s %s is inside the registry %s, which would then hold stray files; choose a directory outside it (beside it on the stick is fine)", cmd, flag, out, where)
	}
	return nil
}

// realPath is path made absolute with the symbolic links of its longest
// existing part resolved (the rest may not exist yet).
func realPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	rest := ""
	for p := abs; ; {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return abs
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// within reports whether path lies below dir.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && filepath.IsLocal(rel)
}
