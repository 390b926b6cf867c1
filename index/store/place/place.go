// Package place is the registry of place kinds: for each kind of place a
// registry can live in (a directory, a git repository, an OCI registry),
// how a store there is opened and what the kind implies for the commands
// that use it (is it a local path, does a writer sign each change). The
// CLI parses a place with Parse and opens it with Open instead of
// switching on the kind itself.
//
// The syntax of a place (store.Place, store.ParsePlace) stays in
// index/store: the OCI-registry store takes a store.Place, and readers
// that must not link a network client parse places too. This package
// imports every store, the OCI-registry store included, so only the
// binaries that wire the stores (cmd/airvsx) import it.
package place

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/gitstore"
	"github.com/airvsx/airvsx/index/store/ocistore"
)

// Kind is one kind of place: its name, what it implies, and its opener.
type Kind struct {
	// Name is the kind's name (store.PlaceDir, store.PlaceGit,
	// store.PlaceDocker).
	Name store.PlaceKind
	// Local says the place is a path on this machine (Place.Path): it
	// may not exist yet, and it can lie inside another local place.
	Local bool
	// Network says the place is reached over the network: Options.Net
	// applies to it.
	Network bool
	// CommitSigned says every change a writer makes is a commit signed
	// with Options.Signer, so a writer must have a signer.
	CommitSigned bool
	// SignsEntries says a writer with Options.Signer signs each entry
	// manifest it tags (cosign signatures), which no reader of airvsx
	// needs; without a signer it signs nothing.
	SignsEntries bool
	// Repairable says a copy with repair can mend the store's damaged
	// blobs and layout files (store.BlobReplacer, store.LayoutRepairer).
	Repairable bool
	// FreeSpaceAt, when not nil, says how much a registry made at a place
	// of this kind that does not exist yet could hold: the free space of
	// the file system it would be made on.
	FreeSpaceAt func(p store.Place) (free, block int64, err error)
	// MissingHint is what to check when a place of this kind opened for
	// reading does not exist (NotExistError).
	MissingHint string

	open func(ctx context.Context, p store.Place, o Options) (store.Store, error)
	// missing says that p does not exist, given the store's error.
	missing func(p store.Place, err error) string
}

// Options configure Open.
type Options struct {
	// Write opens for writing; a local place that does not exist is
	// created. Default false: read-only, and a missing local place is an
	// error wrapping fs.ErrNotExist.
	Write bool
	// Signer signs a writer's changes (see Kind.CommitSigned and
	// Kind.SignsEntries). Default nil.
	Signer signature.Signer
	// Net are the options of a place reached over the network.
	Net NetOptions
	// Logger receives the debug and warning records of a store reached
	// over the network. Default nil: discard.
	Logger *slog.Logger
}

// NetOptions are the options of a place reached over the network (an OCI
// registry); other kinds ignore them.
type NetOptions struct {
	// Insecure uses plain HTTP, only to a loopback or private address
	// unless AllowInsecureRemote.
	Insecure, AllowInsecureRemote bool
	// AlsoDial are hosts besides the place's that the registry may send
	// requests to (its token service, its blob storage).
	AlsoDial []string
	// RootCAs are the roots TLS trusts. Default nil: the system's.
	RootCAs *x509.CertPool
}

// kinds is the registry: every kind of place, by name.
var kinds = map[store.PlaceKind]*Kind{
	store.PlaceDir: {
		Name: store.PlaceDir, Local: true, Repairable: true,
		FreeSpaceAt: func(p store.Place) (int64, int64, error) { return dirstore.FreeSpaceAt(p.Path) },
		MissingHint: "check the path",
		open:        openDir,
		missing:     func(p store.Place, _ error) string { return fmt.Sprintf("registry %s does not exist", p.Path) },
	},
	store.PlaceGit: {
		Name: store.PlaceGit, Local: true, CommitSigned: true,
		MissingHint: "check the path and the ref",
		open:        openGit,
		missing:     func(p store.Place, err error) string { return fmt.Sprintf("registry %s: %v", p, err) },
	},
	store.PlaceDocker: {
		Name: store.PlaceDocker, Network: true, SignsEntries: true,
		open: openDocker,
	},
}

// Parse parses a place (store.ParsePlace) and returns it with its kind.
// An unknown form is an error wrapping store.ErrUnknownPlace.
func Parse(s string) (store.Place, *Kind, error) {
	p, err := store.ParsePlace(s)
	if err != nil {
		return store.Place{}, nil, err
	}
	k, err := KindOf(p)
	if err != nil {
		return store.Place{}, nil, err
	}
	return p, k, nil
}

// KindOf returns the kind of p; an error wrapping store.ErrUnknownPlace
// for a kind no store opens.
func KindOf(p store.Place) (*Kind, error) {
	k, ok := kinds[p.Kind]
	if !ok {
		return nil, fmt.Errorf("place %s: airvsx cannot open %s registries; use a directory (DIR), a git repository (git:PATH[#REF]) or an OCI registry (docker://HOST[:PORT]/PREFIX): %w", p, p.Kind, store.ErrUnknownPlace)
	}
	return k, nil
}

// Open opens the store at p with the opener of its kind. What it returns
// checks every call's arguments (store.Checked).
func Open(ctx context.Context, p store.Place, o Options) (store.Store, error) {
	k, err := KindOf(p)
	if err != nil {
		return nil, err
	}
	st, err := k.open(ctx, p, o)
	if ne := (*NotExistError)(nil); errors.As(err, &ne) {
		ne.Kind = k
	}
	return st, err
}

func openDir(_ context.Context, p store.Place, o Options) (store.Store, error) {
	if !o.Write {
		st, err := dirstore.Open(p.Path, dirstore.Options{ReadOnly: true})
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &NotExistError{Place: p, Err: err}
		}
		return st, err
	}
	return dirstore.Open(p.Path, dirstore.Options{Create: true})
}

func openGit(_ context.Context, p store.Place, o Options) (store.Store, error) {
	st, err := gitstore.Open(p.Path, gitstore.Options{Ref: p.Ref, Write: o.Write, Create: o.Write, Signer: o.Signer})
	if !o.Write && errors.Is(err, fs.ErrNotExist) {
		return nil, &NotExistError{Place: p, Err: err}
	}
	return st, err
}

func openDocker(ctx context.Context, p store.Place, o Options) (store.Store, error) {
	oo := ocistore.Options{Insecure: o.Net.Insecure, AllowInsecureRemote: o.Net.AllowInsecureRemote, AlsoDial: o.Net.AlsoDial,
		RootCAs: o.Net.RootCAs, ReadOnly: !o.Write, Logger: o.Logger}
	if o.Write {
		oo.Signer = o.Signer
	}
	st, err := ocistore.Open(ctx, p, oo)
	if err != nil {
		return nil, err
	}
	// A registry that wants a login, or cannot be reached at all, says so
	// now, not as whatever read failed first (for verify, a finding about
	// the metadata). Any other failure is left to the requests that
	// follow.
	if err := st.CheckAccess(ctx); errors.Is(err, ocistore.ErrUnauthorized) || errors.Is(err, store.ErrUnreachable) {
		st.Close()
		return nil, err
	}
	return st, nil // checked: ocistore.Open returns the store wrapped
}

// NotExistError says a local place opened for reading does not exist. It
// wraps the store's error (which wraps fs.ErrNotExist).
type NotExistError struct {
	Place store.Place
	Kind  *Kind
	Err   error
}

// Error says which registry does not exist, in the words of its kind.
func (e *NotExistError) Error() string { return e.Kind.missing(e.Place, e.Err) }

// Unwrap returns the store's error.
func (e *NotExistError) Unwrap() error { return e.Err }
