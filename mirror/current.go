package mirror

import (
	"bytes"
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/policies"
)

// The registry as a sync finds it: its current catalog, whether its
// branch and the signing key are ones the sync may build on, and whether a
// sync with nothing new must sign again.

// checkSigner checks that the registry's newest root trusts the
// signer's key for what a sync signs (trust.CheckPublisher): before a
// download, not at the end when Publish would refuse it. Getting the
// public key waits for a key still being decrypted.
func checkSigner(ctx context.Context, s store.Store, signer signature.Signer) error {
	pub, err := signer.PublicKey()
	if err != nil {
		return fmt.Errorf("signing key: %w", err)
	}
	return trust.CheckPublisher(ctx, "", trust.Metadata(ctx, s), pub)
}

// loadPrevious reads the registry's current catalog through its own TUF
// metadata (signatures and hashes checked from the registry's first root;
// expiry is not: an expired registry can be synced again). It returns nil
// for a registry that has no catalog yet.
func loadPrevious(ctx context.Context, s store.Store) (*index.Catalog, string, *trust.Trusted, error) {
	cat, tr, err := trust.ReadOwnCatalog(ctx, s)
	if errors.Is(err, trust.ErrNoCatalog) {
		return nil, "", nil, nil
	}
	if err != nil {
		return nil, "", nil, fmt.Errorf("the registry's current catalog does not verify: %w", err)
	}
	return cat, tr.CatalogDigest, tr, nil
}

// checkBase refuses a registry kept as a signed history (a git store)
// whose revision, the one the sync's commit goes on top of, no key the
// registry's root trusts for the targets role signed (trust.CheckBase):
// a commit someone without the key added, which the sync would otherwise
// sign over. With no root yet (tr nil), the sync's own key is the one.
func checkBase(ctx context.Context, s store.Store, tr *trust.Trusted, signer signature.Signer) error {
	var keys []crypto.PublicKey
	if tr != nil {
		k, err := tr.RoleKeys("targets")
		if err != nil {
			return fmt.Errorf("the registry's root: %w", err)
		}
		keys = k
	} else if signer != nil {
		if h, ok := store.As[store.History](s); !ok || h.Revision() == "" {
			return nil // no revision to check: do not wait for the key
		}
		pub, err := signer.PublicKey()
		if err != nil {
			return fmt.Errorf("signing key: %w", err)
		}
		keys = []crypto.PublicKey{pub}
	}
	return trust.CheckBase(ctx, s, keys)
}

// metadataExpires is when the metadata vouching for tr's catalog expires:
// the earliest of the four roles; the zero time for no catalog.
func metadataExpires(tr *trust.Trusted) time.Time {
	if tr == nil {
		return time.Time{}
	}
	expires := tr.Timestamp.Expires
	for _, r := range []trust.RoleInfo{tr.Snapshot, tr.Targets, tr.Root} {
		if r.Expires.Before(expires) {
			expires = r.Expires
		}
	}
	return expires.UTC()
}

// sameContent reports whether next says what prev says: the same
// format, entries, upstream keys, upstream and policy, whatever its
// serial, creation time, chain link and shards (which follow from the
// entries). A format-1 prev is never the same: the next sync upgrades it.
//
// It compares the catalogs without their entries, then the entries one
// by one, each encoded alone: encoding two catalogs of 200,000 entries
// whole held 224 MB of JSON. Catalogs of different lengths differ at
// once. Like Encode, it sorts both catalogs' entries in place.
func sameContent(prev, next *index.Catalog) (bool, error) {
	if len(prev.Entries) != len(next.Entries) {
		return false, nil
	}
	p, c := *prev, *next
	c.Serial, c.Created, c.Previous = prev.Serial, prev.Created, prev.Previous
	c.ShardDigits, c.Shards = prev.ShardDigits, prev.Shards
	c.Control = prev.Control // compared by sameControl, whenever fetched
	p.Normalize()
	c.Normalize()
	pe, ce := p.Entries, c.Entries
	p.Entries, c.Entries = nil, nil
	a, err := p.Encode()
	if err != nil {
		return false, err
	}
	b, err := c.Encode()
	if err != nil || !bytes.Equal(a, b) {
		return false, err
	}
	for i := range pe {
		a, err := json.Marshal(&pe[i])
		if err != nil {
			return false, err
		}
		b, err := json.Marshal(&ce[i])
		if err != nil || !bytes.Equal(a, b) {
			return false, err
		}
	}
	return true, nil
}

// renewal says why a catalog with nothing new is signed again, or "" to
// leave the registry unchanged: asked to (force), or its metadata expires
// at expires, within half of the policy's catalog.expires (0: the
// default) from now, or already has.
func renewal(force bool, expires, now time.Time, catalogExpires time.Duration) string {
	if catalogExpires <= 0 {
		catalogExpires = policies.DefaultCatalogExpires
	}
	switch {
	case force:
		return "asked to renew"
	case !expires.After(now):
		return "the registry's metadata expired " + expires.Format(time.RFC3339)
	case expires.Sub(now) < catalogExpires/2:
		return fmt.Sprintf("the registry's metadata expires %s, within half of catalog.expires (%s)", expires.Format(time.RFC3339), policies.FormatExpiry(catalogExpires))
	}
	return ""
}
