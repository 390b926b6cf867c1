package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/gitstore"
	"github.com/airvsx/airvsx/index/trust"
)

// placeHelp is how flag help names a place.
const placeHelp = "the registry: a directory (DIR) or a git repository (git:PATH[#REF], one signed commit per change); docker://HOST[:PORT]/PREFIX is recognized but not built yet"

// openRegistry opens the registry at a place (and, for writers, creates a
// directory registry). Every command goes through it, so every command
// accepts the same forms (store.ParsePlace).
func openRegistry(place string, write bool) (store.Store, error) {
	return openRegistrySigned(place, write, nil)
}

// openRegistrySigned is openRegistry for a writer that signs its changes
// (sync): a git store signs each commit with signer.
func openRegistrySigned(place string, write bool, signer signature.Signer) (store.Store, error) {
	p, err := store.ParsePlace(place)
	if err != nil {
		return nil, &usageError{err}
	}
	switch p.Kind {
	case store.PlaceDir:
		if !write {
			st, err := store.OpenDir(p.Path, store.DirOptions{ReadOnly: true})
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("registry %s does not exist (check the path, or create one with airvsx sync)", p.Path)
			}
			return st, err
		}
		return store.OpenDir(p.Path, store.DirOptions{Create: true})
	case store.PlaceGit:
		st, err := gitstore.Open(p.Path, gitstore.Options{Ref: p.Ref, Write: write, Create: write, Signer: signer})
		if !write && errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("registry %s: %w (check the path and the ref, or create one with airvsx sync)", place, err)
		}
		return st, err
	default:
		return nil, &usageError{fmt.Errorf("place %s: %s registries are not built yet; use a directory (copy it with cp -a or rsync)", place, p.Kind)}
	}
}

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
		return trust.Anchor{}, nil, fmt.Errorf("%s: trust anchor: %w", verb, err)
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
