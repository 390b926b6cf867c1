package site

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/control"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
)

// ErrNotVerified is wrapped when the catalog could not be verified against
// a trust anchor and Options.Unverified was not set.
var ErrNotVerified = errors.New("catalog not verified")

// ErrNoTrustAnchor is wrapped (with ErrNotVerified) when Options.Anchor
// is empty.
var ErrNoTrustAnchor = errors.New("no trust anchor: give a pinned root or the signer's public key")

// trusted is what the site knows about the catalog it renders.
type trusted struct {
	cat      *index.Catalog
	digest   string    // sha256:<hex> of the catalog bytes
	expires  time.Time // the earliest expiry of the metadata chain
	verified bool
	reason   string // why not verified, for the banner
	// control is the extension control lists the verified catalog pins
	// (nil when it pins none, or the catalog was not verified).
	control *control.Set
}

// readCatalog reads and, where it can, verifies the catalog through
// index/trust, as the package comment says.
func readCatalog(ctx context.Context, st store.Store, opts *Options) (*trusted, error) {
	verr := ErrNoTrustAnchor
	if opts.Anchor.Root != nil || opts.Anchor.Key != nil {
		t, err := readVerified(ctx, st, opts)
		if err == nil {
			return t, nil
		}
		if errors.Is(err, trust.ErrNoCatalog) || errors.Is(err, trust.ErrState) || ctx.Err() != nil {
			return nil, err
		}
		verr = err
	}
	if !opts.Unverified {
		return nil, fmt.Errorf("%w: %w", ErrNotVerified, verr)
	}
	reason := verr.Error()
	if errors.Is(verr, ErrNoTrustAnchor) {
		reason = "rendered without a trusted root or key (--unverified)"
	}
	u, err := trust.ReadUnverified(ctx, st, opts.Now, reason)
	if err != nil {
		return nil, fmt.Errorf("%w: %w; reading it unverified: %w", ErrNotVerified, verr, err)
	}
	return &trusted{cat: u.Catalog, digest: u.Digest, expires: u.Expires, reason: u.Why}, nil
}

func readVerified(ctx context.Context, st store.Store, opts *Options) (*trusted, error) {
	cat, c, err := trust.ReadVerified(ctx, st, opts.Anchor, trust.CheckOptions{State: opts.State, Now: opts.Now})
	if err != nil {
		return nil, err
	}
	set, err := controlSet(ctx, c.Trusted, cat)
	if err != nil {
		return nil, err
	}
	return &trusted{cat: cat, digest: c.CatalogDigest, expires: c.Expires(), verified: true, control: set}, nil
}

// controlSet reads the control lists cat pins through chain.
func controlSet(ctx context.Context, chain *trust.Trusted, cat *index.Catalog) (*control.Set, error) {
	files, err := chain.Control(ctx, cat)
	if err != nil || len(files) == 0 {
		return nil, err
	}
	return control.Load(files...)
}
