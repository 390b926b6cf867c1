package trust

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/theupdateframework/go-tuf/v2/metadata"
	"github.com/theupdateframework/go-tuf/v2/metadata/trustedmetadata"
)

// LoadOptions configure Load. The zero value checks expiry against the
// current time and records no earlier state.
type LoadOptions struct {
	// Now is the clock expiry is checked against; nil means time.Now.
	Now func() time.Time
	// Previous is the State recorded by an earlier successful Load (see
	// Trusted.State); a role whose version is lower than recorded fails with
	// ErrRollback, an equal version is fine. nil means no earlier state.
	// When a root rotation newer than Previous.Root changes the timestamp or
	// snapshot keys, the timestamp, snapshot and targets versions are not
	// compared (TUF's recovery from a fast-forward attack).
	Previous *State
}

// RoleInfo describes one verified role.
type RoleInfo struct {
	// Version is the role's metadata version.
	Version int64
	// Expires is when the role's metadata expires (UTC).
	Expires time.Time
	// KeyIDs are the TUF key IDs the root trusts for the role, sorted.
	KeyIDs []string
	// Threshold is how many of KeyIDs must sign.
	Threshold int
}

// Trusted is the outcome of a successful Load: the verified catalog and the
// metadata that vouches for it.
type Trusted struct {
	// Catalog is the verified catalog bytes, exactly as stored.
	Catalog []byte
	// CatalogDigest is "sha256:<hex>" of Catalog.
	CatalogDigest string
	// RootJSON is the newest verified root; a verifier may pin it instead of
	// the root it started from after a rotation.
	RootJSON []byte
	// Root, Timestamp, Snapshot and Targets describe the four roles.
	Root, Timestamp, Snapshot, Targets RoleInfo

	meta MetadataFS // where the shards are read from
}

// State returns the versions to persist and pass as LoadOptions.Previous
// next time.
func (t *Trusted) State() State {
	return State{
		Root:      t.Root.Version,
		Timestamp: t.Timestamp.Version,
		Snapshot:  t.Snapshot.Version,
		Targets:   t.Targets.Version,
	}
}

// Load verifies the trust chain in fsys offline, starting from trustedRoot
// (the root.json bytes the user pinned), and returns the verified catalog.
// The rules are listed at the top of trust.go. Errors wrap ErrSignature,
// ErrExpired, ErrRollback, ErrMismatch, ErrMissing or ErrMalformed.
func Load(ctx context.Context, fsys MetadataFS, trustedRoot []byte, opts LoadOptions) (*Trusted, error) {
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	c, err := verifyChain(ctx, fsys, trustedRoot, chainOptions{
		now:     now().UTC(),
		prev:    opts.Previous,
		catalog: true,
	})
	if err != nil {
		return nil, err
	}
	tm := c.tm
	t := &Trusted{
		Catalog:       c.catalog,
		CatalogDigest: index.DigestBytes(c.catalog),
		RootJSON:      c.rootBytes,
		meta:          fsys,
		Root:          roleInfo(tm.Root, metadata.ROOT, tm.Root.Signed.Version, tm.Root.Signed.Expires),
		Timestamp:     roleInfo(tm.Root, metadata.TIMESTAMP, tm.Timestamp.Signed.Version, tm.Timestamp.Signed.Expires),
		Snapshot:      roleInfo(tm.Root, metadata.SNAPSHOT, tm.Snapshot.Signed.Version, tm.Snapshot.Signed.Expires),
	}
	tg := tm.Targets[metadata.TARGETS]
	t.Targets = roleInfo(tm.Root, metadata.TARGETS, tg.Signed.Version, tg.Signed.Expires)
	return t, nil
}

func roleInfo(root *metadata.Metadata[metadata.RootType], role string, version int64, expires time.Time) RoleInfo {
	r := root.Signed.Roles[role]
	ids := slices.Clone(r.KeyIDs)
	slices.Sort(ids)
	return RoleInfo{Version: version, Expires: expires.UTC(), KeyIDs: ids, Threshold: r.Threshold}
}

// TrustOnFirstUse reads 1.root.json from fsys, checks that the public key of
// verifier is one of its root keys and has signed it, and that it verifies
// with its own threshold; it returns the bytes, to be pinned and passed to
// Load (the --key mode of verify).
func TrustOnFirstUse(ctx context.Context, fsys MetadataFS, verifier signature.Verifier) (rootBytes []byte, err error) {
	defer recoverMalformed(&err)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := readCapped(fsys, rootName(1), MaxRootBytes, ErrMalformed)
	if err != nil {
		return nil, err
	}
	return firstRoot(data, verifier)
}

// firstRoot is TrustOnFirstUse on the bytes of 1.root.json, already read.
func firstRoot(data []byte, verifier signature.Verifier) (rootBytes []byte, err error) {
	defer recoverMalformed(&err)
	name := rootName(1)
	root, err := parseRoot(name, data)
	if err != nil {
		return nil, err
	}
	if root.Signed.Version != 1 {
		return nil, fileError(name, ErrMismatch, "version %d, want 1", root.Signed.Version)
	}
	pub, err := verifier.PublicKey()
	if err != nil {
		return nil, fmt.Errorf("trust on first use: %w", err)
	}
	key, err := metadata.KeyFromPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("trust on first use: %w", err)
	}
	id, err := key.ID()
	if err != nil {
		return nil, fmt.Errorf("trust on first use: %w", err)
	}
	if !slices.Contains(root.Signed.Roles[metadata.ROOT].KeyIDs, id) {
		return nil, fileError(name, ErrSignature, "key %s is not a root key", id)
	}
	// A one-key delegator checks that this very key signed the root.
	only := metadata.Root()
	only.Signed.Keys[id] = key
	only.Signed.Roles[metadata.ROOT] = &metadata.Role{KeyIDs: []string{id}, Threshold: 1}
	if err := only.VerifyDelegate(metadata.ROOT, root); err != nil {
		return nil, fileError(name, ErrSignature, "not signed by key %s", id)
	}
	if _, err := trustedmetadata.New(data); err != nil {
		return nil, stepError(name, "", err, root.Signed.Version, root.Signed.Expires, time.Time{})
	}
	return data, nil
}
