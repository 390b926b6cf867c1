package site

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
)

// ErrNotVerified is wrapped when the catalog could not be verified against
// a trust anchor and Options.Unverified was not set.
var ErrNotVerified = errors.New("catalog not verified")

// ErrNoTrustAnchor is wrapped (with ErrNotVerified) when neither
// Options.Root nor Options.Key was given.
var ErrNoTrustAnchor = errors.New("no trust anchor: give a pinned root or the signer's public key")

// trusted is what the site knows about the catalog it renders.
type trusted struct {
	cat      *index.Catalog
	digest   string    // sha256:<hex> of the catalog bytes
	expires  time.Time // the earliest expiry of the metadata chain
	verified bool
	reason   string // why not verified, for the banner
}

// readCatalog reads and, where it can, verifies the catalog as the package
// comment says.
func readCatalog(ctx context.Context, st store.Store, opts *Options) (*trusted, error) {
	load := index.LoadOptions{Now: opts.Now}
	var verr error
	root := opts.Root
	switch {
	case root == nil && opts.Key != nil:
		b, err := index.TrustOnFirstUse(ctx, store.Metadata(ctx, st), opts.Key)
		if err != nil {
			verr = fmt.Errorf("the registry's 1.root.json is not signed by the given key: %w", err)
		}
		root = b
	case root == nil:
		verr = ErrNoTrustAnchor
	}
	if verr == nil {
		cat, tr, err := store.ReadCatalog(ctx, st, store.CatalogOptions{Root: root, Load: load})
		if err == nil {
			return &trusted{cat: cat, digest: tr.CatalogDigest, expires: earliest(tr), verified: true}, nil
		}
		if errors.Is(err, store.ErrNoCatalog) {
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
	// Unverified: the registry's own root first, so a consistent registry
	// still has its expiry checked; then the bare metadata.
	if cat, tr, err := store.ReadCatalog(ctx, st, store.CatalogOptions{Load: load}); err == nil {
		return &trusted{cat: cat, digest: tr.CatalogDigest, expires: earliest(tr), reason: reason}, nil
	} else if errors.Is(err, store.ErrNoCatalog) {
		return nil, err
	} else if !errors.Is(verr, ErrNoTrustAnchor) {
		reason += "; " + err.Error()
	} else {
		reason = err.Error()
	}
	t, err := readUnverified(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("%w: %w; reading it unverified: %w", ErrNotVerified, verr, err)
	}
	t.reason = reason
	return t, nil
}

func earliest(tr *index.Trusted) time.Time {
	e := tr.Timestamp.Expires
	for _, r := range []index.RoleInfo{tr.Root, tr.Snapshot, tr.Targets} {
		if r.Expires.Before(e) {
			e = r.Expires
		}
	}
	return e
}

// readUnverified follows timestamp → snapshot → targets → catalog without
// checking any signature or expiry; it checks only that the catalog has
// the length and sha256 the targets metadata lists.
func readUnverified(ctx context.Context, st store.Store) (*trusted, error) {
	type meta struct {
		Signed struct {
			Expires time.Time `json:"expires"`
			Meta    map[string]struct {
				Version int64 `json:"version"`
			} `json:"meta"`
			Targets map[string]struct {
				Length int64             `json:"length"`
				Hashes map[string]string `json:"hashes"`
			} `json:"targets"`
		} `json:"signed"`
	}
	read := func(name string, max int64) (*meta, error) {
		b, err := st.ReadMetadata(ctx, name, max)
		if err != nil {
			return nil, err
		}
		var m meta
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("metadata/%s: %w", name, err)
		}
		return &m, nil
	}
	ts, err := read(index.TimestampFile, index.MaxTimestampBytes)
	if err != nil {
		return nil, err
	}
	snapName := fmt.Sprintf("%d.snapshot.json", ts.Signed.Meta["snapshot.json"].Version)
	snap, err := read(snapName, index.MaxSnapshotBytes)
	if err != nil {
		return nil, err
	}
	tgName := fmt.Sprintf("%d.targets.json", snap.Signed.Meta["targets.json"].Version)
	tg, err := read(tgName, index.MaxTargetsBytes)
	if err != nil {
		return nil, err
	}
	target, ok := tg.Signed.Targets[index.CatalogTarget]
	sum := target.Hashes["sha256"]
	if !ok || len(sum) != 64 || target.Length <= 0 || target.Length > index.MaxCatalogBytes {
		return nil, fmt.Errorf("metadata/%s: no usable %s target", tgName, index.CatalogTarget)
	}
	name := index.TargetsDir + "/" + sum + "." + index.CatalogTarget
	b, err := st.ReadMetadata(ctx, name, target.Length)
	if err != nil {
		return nil, err
	}
	got := sha256.Sum256(b)
	if int64(len(b)) != target.Length || hex.EncodeToString(got[:]) != sum {
		return nil, fmt.Errorf("metadata/%s: does not match the length and sha256 in metadata/%s", name, tgName)
	}
	cat, err := index.DecodeCatalog(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("metadata/%s: %w", name, err)
	}
	exp := ts.Signed.Expires
	for _, m := range []*meta{snap, tg} {
		if m.Signed.Expires.Before(exp) {
			exp = m.Signed.Expires
		}
	}
	return &trusted{cat: cat, digest: index.DigestBytes(b), expires: exp.UTC()}, nil
}
