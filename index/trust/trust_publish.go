package trust

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/theupdateframework/go-tuf/v2/metadata"
)

// Default validity periods.
const (
	// DefaultExpires is how long a published catalog (targets, snapshot and
	// timestamp) stays valid when PublishOptions.Expires is 0.
	DefaultExpires = 90 * 24 * time.Hour
	// DefaultRootExpires is how long a new root stays valid when
	// PublishOptions.RootExpires is 0.
	DefaultRootExpires = 365 * 24 * time.Hour
)

// PublishOptions configure Publish and RotateRoot. The zero value works.
type PublishOptions struct {
	// Expires is how long the targets, snapshot and timestamp metadata stay
	// valid; 0 means DefaultExpires (90 days). Expiry times are UTC and
	// truncated to the second.
	Expires time.Duration
	// RootExpires is how long a newly written root stays valid; 0 means
	// DefaultRootExpires (365 days).
	RootExpires time.Duration
	// Now is the clock; nil means time.Now. Tests pin it.
	Now func() time.Time
}

func (o PublishOptions) times() (expires, rootExpires time.Time, err error) {
	if o.Expires < 0 || o.RootExpires < 0 {
		return expires, rootExpires, fmt.Errorf("publish: negative expiry (Expires %v, RootExpires %v)", o.Expires, o.RootExpires)
	}
	now := time.Now().UTC()
	if o.Now != nil {
		now = o.Now().UTC()
	}
	d, rd := o.Expires, o.RootExpires
	if d == 0 {
		d = DefaultExpires
	}
	if rd == 0 {
		rd = DefaultRootExpires
	}
	return now.Add(d).Truncate(time.Second), now.Add(rd).Truncate(time.Second), nil
}

// PublishResult reports what Publish or RotateRoot wrote.
type PublishResult struct {
	// State is the versions now published.
	State State
	// CatalogDigest is "sha256:<hex>" of the published catalog.
	CatalogDigest string
	// KeyID is the TUF key ID of the signer.
	KeyID string
	// Expires is the expiry of the new targets, snapshot and timestamp.
	Expires time.Time
	// RootExpires is the expiry of the newest root (written now or before).
	RootExpires time.Time
	// RootWritten is set when a new N.root.json was written: the first
	// publish, a rotation, or a renewal of a root that would expire before
	// Expires.
	RootWritten bool
	// Written lists the files written, in order, relative to the metadata
	// directory.
	Written []string
}

// Publish signs catalog (canonical bytes from Catalog.Encode; Publish treats
// them as opaque) into the TUF repository in fsys with signer, an ECDSA P-256
// key.
//
// The first publish (no 1.root.json) creates 1.root.json and root.json with
// the signer's key for all four roles, threshold 1. Later publishes verify the
// current chain (signatures, hashes and versions; not expiry, so an expired
// registry can be renewed), refuse a signer whose key the root does not trust
// for targets, snapshot and timestamp, and bump each of those versions by one.
// If the newest root would expire before the new timestamp and the signer is
// also the root key, the root is renewed (N+1.root.json, same keys).
//
// Files are written in this order: N.root.json and root.json when a root is
// written, targets/<sha256>.catalog.json, N.targets.json, N.snapshot.json and
// last timestamp.json, so a crash at any point leaves the previous set valid.
func Publish(ctx context.Context, fsys MetadataFS, catalog []byte, signer signature.Signer, opts PublishOptions) (*PublishResult, error) {
	if len(catalog) == 0 || len(catalog) > index.MaxCatalogBytes {
		return nil, fmt.Errorf("publish: catalog is %d bytes, want 1..%d", len(catalog), index.MaxCatalogBytes)
	}
	expires, rootExpires, err := opts.times()
	if err != nil {
		return nil, err
	}
	key, keyID, err := signerKey(signer)
	if err != nil {
		return nil, err
	}
	w := &writer{ctx: ctx, fsys: fsys}
	res := &PublishResult{KeyID: keyID, Expires: expires, CatalogDigest: index.DigestBytes(catalog)}

	cur, err := currentChain(ctx, fsys)
	if err != nil {
		return nil, err
	}
	var root *metadata.Metadata[metadata.RootType]
	if cur == nil {
		root = metadata.Root(rootExpires)
		for _, role := range []string{metadata.ROOT, metadata.TARGETS, metadata.SNAPSHOT, metadata.TIMESTAMP} {
			if err := root.Signed.AddKey(key, role); err != nil {
				return nil, fmt.Errorf("publish: %w", err)
			}
		}
		if err := w.root(root, signer); err != nil {
			return nil, err
		}
		res.RootWritten = true
	} else {
		root = cur.tm.Root
		for _, role := range []string{metadata.TARGETS, metadata.SNAPSHOT, metadata.TIMESTAMP} {
			if err := soleSigner(root, role, keyID); err != nil {
				return nil, err
			}
		}
		switch {
		case root.Signed.Expires.Before(expires) && soleSigner(root, metadata.ROOT, keyID) == nil:
			renewed := metadata.Root(rootExpires)
			renewed.Signed.Version = root.Signed.Version + 1
			renewed.Signed.Keys = root.Signed.Keys
			renewed.Signed.Roles = root.Signed.Roles
			if err := w.root(renewed, signer); err != nil {
				return nil, err
			}
			root = renewed
			res.RootWritten = true
		default:
			// Repair root.json if a crash left it behind the newest root.
			pinned, err := readCapped(fsys, RootFile, MaxRootBytes, ErrMalformed)
			if err != nil || !bytes.Equal(pinned, cur.rootBytes) {
				if err := w.write(RootFile, cur.rootBytes); err != nil {
					return nil, err
				}
			}
		}
	}
	res.RootExpires = root.Signed.Expires

	tf, err := metadata.TargetFile().FromBytes(CatalogTarget, catalog, "sha256")
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	if err := w.write(catalogName(hex.EncodeToString(tf.Hashes["sha256"])), catalog); err != nil {
		return nil, err
	}
	st, err := w.release(cur.versions(), tf, expires, signer)
	if err != nil {
		return nil, err
	}
	st.Root = root.Signed.Version
	res.State, res.Written = st, w.written
	return res, nil
}

// RotateRoot replaces the key of all four roles: it writes N+1.root.json with
// newSigner's key alone (threshold 1), signed by both oldSigner (which must
// be the current root key) and newSigner, and re-signs the current catalog
// with both keys so that it verifies under either root. Order: N.targets.json,
// N.snapshot.json, timestamp.json (valid under the old root), then
// N+1.root.json and root.json; a crash leaves a valid set either way.
// oldSigner and newSigner may be the same key, which renews the root.
// opts as for Publish (Expires for the re-signed catalog, RootExpires for the
// new root).
func RotateRoot(ctx context.Context, fsys MetadataFS, oldSigner, newSigner signature.Signer, opts PublishOptions) (*PublishResult, error) {
	expires, rootExpires, err := opts.times()
	if err != nil {
		return nil, err
	}
	_, oldID, err := signerKey(oldSigner)
	if err != nil {
		return nil, err
	}
	newKey, newID, err := signerKey(newSigner)
	if err != nil {
		return nil, err
	}
	cur, err := currentChain(ctx, fsys)
	if err != nil {
		return nil, err
	}
	if cur == nil {
		return nil, fmt.Errorf("rotate root: %s: nothing published yet: %w", displayName(rootName(1)), ErrMissing)
	}
	if err := soleSigner(cur.tm.Root, metadata.ROOT, oldID); err != nil {
		return nil, err
	}
	signers := []signature.Signer{newSigner}
	if oldID != newID {
		signers = append(signers, oldSigner)
	}
	w := &writer{ctx: ctx, fsys: fsys}
	res := &PublishResult{KeyID: newID, Expires: expires, RootExpires: rootExpires, RootWritten: true}

	root := metadata.Root(rootExpires)
	root.Signed.Version = cur.tm.Root.Signed.Version + 1
	for _, role := range []string{metadata.ROOT, metadata.TARGETS, metadata.SNAPSHOT, metadata.TIMESTAMP} {
		if err := root.Signed.AddKey(newKey, role); err != nil {
			return nil, fmt.Errorf("rotate root: %w", err)
		}
	}
	if cur.targets != nil {
		tf := cur.targets.Signed.Targets[CatalogTarget]
		st, err := w.release(cur.versions(), tf, expires, signers...)
		if err != nil {
			return nil, err
		}
		res.State = st
		res.CatalogDigest = index.DigestOfSum(tf.Hashes["sha256"])
	}
	if err := w.root(root, signers...); err != nil {
		return nil, err
	}
	res.State.Root = root.Signed.Version
	res.Written = w.written
	return res, nil
}

// currentChain verifies the repository as the publisher sees it: from its own
// 1.root.json through every rotation, without expiry. It returns nil, nil
// when there is no 1.root.json yet.
func currentChain(ctx context.Context, fsys MetadataFS) (*chain, error) {
	data, err := readCapped(fsys, rootName(1), MaxRootBytes, ErrMalformed)
	if errors.Is(err, ErrMissing) {
		if _, terr := readCapped(fsys, TimestampFile, MaxTimestampBytes, ErrMalformed); !errors.Is(terr, ErrMissing) {
			return nil, fmt.Errorf("publish: %s exists but %s does not: %w", displayName(TimestampFile), displayName(rootName(1)), ErrMissing)
		}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	c, err := verifyChain(ctx, fsys, data, chainOptions{allowNoTimestamp: true})
	if err != nil {
		return nil, fmt.Errorf("publish: the current metadata does not verify: %w", err)
	}
	return c, nil
}

// versions returns the published timestamp, snapshot and targets versions,
// zero before the first complete publish.
func (c *chain) versions() State {
	if c == nil || c.targets == nil {
		return State{}
	}
	return State{
		Timestamp: c.tm.Timestamp.Signed.Version,
		Snapshot:  c.tm.Snapshot.Signed.Version,
		Targets:   c.targets.Signed.Version,
	}
}

// signerKey returns the TUF key and key ID of an ECDSA P-256 signer.
func signerKey(s signature.Signer) (*metadata.Key, string, error) {
	if s == nil {
		return nil, "", errors.New("publish: no signer")
	}
	pub, err := s.PublicKey()
	if err != nil {
		return nil, "", fmt.Errorf("publish: signer public key: %w", err)
	}
	if _, err := p256Public(pub); err != nil {
		return nil, "", fmt.Errorf("publish: signer %w", err)
	}
	key, err := metadata.KeyFromPublicKey(pub)
	if err != nil {
		return nil, "", fmt.Errorf("publish: %w", err)
	}
	id, err := key.ID()
	if err != nil {
		return nil, "", fmt.Errorf("publish: %w", err)
	}
	return key, id, nil
}

// soleSigner checks that keyID alone can sign for role: it is one of the
// role's keys and the threshold is 1.
func soleSigner(root *metadata.Metadata[metadata.RootType], role, keyID string) error {
	r := root.Signed.Roles[role]
	if !slices.Contains(r.KeyIDs, keyID) {
		return fmt.Errorf("key %s is not trusted by root.json (version %d) for the %s role: %w", keyID, root.Signed.Version, role, ErrSignature)
	}
	if r.Threshold != 1 {
		return fmt.Errorf("the %s role needs %d signatures; airvsx signs with one key: %w", role, r.Threshold, ErrSignature)
	}
	return nil
}

// writer writes metadata files in order and records their names.
type writer struct {
	ctx     context.Context
	fsys    MetadataFS
	written []string
}

func (w *writer) write(name string, data []byte) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if err := w.fsys.WriteFile(name, data); err != nil {
		return fmt.Errorf("publish: write %s: %w", displayName(name), err)
	}
	w.written = append(w.written, name)
	return nil
}

// root signs root and writes it as N.root.json and root.json.
func (w *writer) root(root *metadata.Metadata[metadata.RootType], signers ...signature.Signer) error {
	data, err := signed(root, signers)
	if err != nil {
		return err
	}
	if err := w.write(rootName(root.Signed.Version), data); err != nil {
		return err
	}
	return w.write(RootFile, data)
}

// release writes targets (listing tf as the catalog), snapshot and timestamp,
// each one version above cur, signed by signers; timestamp.json last.
func (w *writer) release(cur State, tf *metadata.TargetFiles, expires time.Time, signers ...signature.Signer) (State, error) {
	next := State{Timestamp: cur.Timestamp + 1, Snapshot: cur.Snapshot + 1, Targets: cur.Targets + 1}

	targets := metadata.Targets(expires)
	targets.Signed.Version = next.Targets
	targets.Signed.Targets[CatalogTarget] = tf
	tgData, err := signed(targets, signers)
	if err != nil {
		return State{}, err
	}
	snapshot := metadata.Snapshot(expires)
	snapshot.Signed.Version = next.Snapshot
	snapshot.Signed.Meta = map[string]*metadata.MetaFiles{metadata.TARGETS + ".json": metaFile(next.Targets, tgData)}
	snData, err := signed(snapshot, signers)
	if err != nil {
		return State{}, err
	}
	timestamp := metadata.Timestamp(expires)
	timestamp.Signed.Version = next.Timestamp
	timestamp.Signed.Meta = map[string]*metadata.MetaFiles{metadata.SNAPSHOT + ".json": metaFile(next.Snapshot, snData)}
	tsData, err := signed(timestamp, signers)
	if err != nil {
		return State{}, err
	}
	for _, f := range []struct {
		name string
		data []byte
	}{
		{targetsName(next.Targets), tgData},
		{snapshotName(next.Snapshot), snData},
		{TimestampFile, tsData},
	} {
		if err := w.write(f.name, f.data); err != nil {
			return State{}, err
		}
	}
	return next, nil
}

// metaFile describes a metadata file for snapshot or timestamp: version,
// length and sha256.
func metaFile(version int64, data []byte) *metadata.MetaFiles {
	sum := sha256.Sum256(data)
	return &metadata.MetaFiles{Version: version, Length: int64(len(data)), Hashes: metadata.Hashes{"sha256": sum[:]}}
}

// signed signs m with each signer and returns its bytes (indented JSON, for
// readable diffs; signatures cover the canonical JSON of "signed").
func signed[T header](m *metadata.Metadata[T], signers []signature.Signer) ([]byte, error) {
	m.ClearSignatures()
	for _, s := range signers {
		if _, err := m.Sign(s); err != nil {
			return nil, fmt.Errorf("publish: sign: %w", err)
		}
	}
	data, err := m.ToBytes(true)
	if err != nil {
		return nil, fmt.Errorf("publish: encode: %w", err)
	}
	return append(data, '\n'), nil
}
