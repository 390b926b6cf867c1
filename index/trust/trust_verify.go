package trust

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/theupdateframework/go-tuf/v2/metadata"
	"github.com/theupdateframework/go-tuf/v2/metadata/trustedmetadata"
)

// chainOptions select what verifyChain checks.
type chainOptions struct {
	now              time.Time // zero: expiry is not checked (the publisher)
	prev             *State    // nil: no rollback check
	catalog          bool      // read and verify the catalog target
	allowNoTimestamp bool      // a missing timestamp.json ends the chain early
}

// chain is what verifyChain verified.
type chain struct {
	tm        *trustedmetadata.TrustedMetadata
	rootBytes []byte // the newest root
	// targets is nil when allowNoTimestamp and there is no timestamp.json.
	targets *metadata.Metadata[metadata.TargetsType]
	catalog []byte
}

// verifyChain runs the TUF client workflow over fsys from trustedRoot.
// trustedmetadata does the checks of the specification; verifyChain adds the
// size caps, the structure checks that keep go-tuf from dereferencing nil, the
// recorded-state rollback checks, the catalog target, and errors that name the
// file and field and wrap our sentinels.
func verifyChain(ctx context.Context, fsys MetadataFS, trustedRoot []byte, o chainOptions) (_ *chain, err error) {
	defer recoverMalformed(&err)
	prev := State{}
	if o.prev != nil {
		prev = *o.prev
	}
	const pinned = "root.json (pinned)"
	root, err := parseRoot(pinned, trustedRoot)
	if err != nil {
		return nil, err
	}
	tm, err := trustedmetadata.New(trustedRoot)
	if err != nil {
		return nil, stepError(pinned, "", err, root.Signed.Version, root.Signed.Expires, o.now)
	}
	tm.RefTime = o.now
	c := &chain{tm: tm, rootBytes: trustedRoot}

	// Roots: follow N+1.root.json while present.
	resetRoles := false
	for range maxRootRotations {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := tm.Root.Signed.Version + 1
		name := rootName(v)
		data, err := readCapped(fsys, name, MaxRootBytes, ErrMalformed)
		if errors.Is(err, ErrMissing) {
			break
		}
		if err != nil {
			return nil, err
		}
		next, err := parseRoot(name, data)
		if err != nil {
			return nil, err
		}
		old := tm.Root
		if _, err := tm.UpdateRoot(data); err != nil {
			return nil, stepError(name, "", err, next.Signed.Version, next.Signed.Expires, o.now, v)
		}
		c.rootBytes = data
		if v > prev.Root && (!sameKeys(old, next, metadata.TIMESTAMP) || !sameKeys(old, next, metadata.SNAPSHOT)) {
			resetRoles = true
		}
	}
	root = tm.Root
	var problems []error
	if root.Signed.Version < prev.Root {
		problems = append(problems, rollbackError(rootName(root.Signed.Version), root.Signed.Version, prev.Root))
	}
	if !o.now.IsZero() && root.Signed.IsExpired(o.now) {
		problems = append(problems, expiredError(rootName(root.Signed.Version), root.Signed.Expires, o.now))
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	if resetRoles {
		prev.Timestamp, prev.Snapshot, prev.Targets = 0, 0, 0
	}

	// Timestamp.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := readCapped(fsys, TimestampFile, MaxTimestampBytes, ErrMalformed)
	if err != nil {
		if o.allowNoTimestamp && errors.Is(err, ErrMissing) {
			return c, nil
		}
		return nil, err
	}
	ts, err := parseMeta(metadata.Timestamp(), TimestampFile, data, metadata.TIMESTAMP)
	if err != nil {
		return nil, err
	}
	snapMeta, err := roleMeta(TimestampFile, ts.Signed.Meta, metadata.SNAPSHOT)
	if err != nil {
		return nil, err
	}
	_, err = tm.UpdateTimestamp(data)
	if err := checkStep(TimestampFile, "", err, ts.Signed.Version, ts.Signed.Expires, prev.Timestamp, o.now); err != nil {
		return nil, err
	}

	// Snapshot.
	name := snapshotName(snapMeta.Version)
	sn, data, err := readRole(ctx, fsys, name, snapMeta, MaxSnapshotBytes, metadata.Snapshot(), metadata.SNAPSHOT)
	if err != nil {
		return nil, err
	}
	tgMeta, err := roleMeta(name, sn.Signed.Meta, metadata.TARGETS)
	if err != nil {
		return nil, err
	}
	_, err = tm.UpdateSnapshot(data, false)
	if err := checkStep(name, TimestampFile+` meta["snapshot.json"]`, err, sn.Signed.Version, sn.Signed.Expires, prev.Snapshot, o.now, snapMeta.Version); err != nil {
		return nil, err
	}

	// Targets.
	name = targetsName(tgMeta.Version)
	tg, data, err := readRole(ctx, fsys, name, tgMeta, MaxTargetsBytes, metadata.Targets(), metadata.TARGETS)
	if err != nil {
		return nil, err
	}
	_, err = tm.UpdateTargets(data)
	if err := checkStep(name, snapshotName(snapMeta.Version)+` meta["targets.json"]`, err, tg.Signed.Version, tg.Signed.Expires, prev.Targets, o.now, tgMeta.Version); err != nil {
		return nil, err
	}
	c.targets = tm.Targets[metadata.TARGETS]

	// The catalog target.
	tf := c.targets.Signed.Targets[CatalogTarget]
	if tf == nil {
		return nil, fileError(name, ErrMalformed, "targets[%q] missing", CatalogTarget)
	}
	sum := tf.Hashes["sha256"]
	if len(sum) != 32 {
		return nil, fileError(name, ErrMalformed, "targets[%q].hashes.sha256 missing or not 32 bytes", CatalogTarget)
	}
	if tf.Length < 0 || tf.Length > index.MaxCatalogBytes {
		return nil, fileError(name, ErrMalformed, "targets[%q].length %d outside 0..%d", CatalogTarget, tf.Length, index.MaxCatalogBytes)
	}
	if !o.catalog {
		return c, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cname := catalogName(hex.EncodeToString(sum))
	cat, err := readCapped(fsys, cname, tf.Length, ErrMismatch)
	if err != nil {
		return nil, err
	}
	if err := tf.VerifyLengthHashes(cat); err != nil {
		return nil, fileError(cname, ErrMismatch, "length or sha256 differs from %s targets[%q] (length %d, sha256 %s)",
			name, CatalogTarget, tf.Length, hex.EncodeToString(sum))
	}
	c.catalog = cat
	return c, nil
}

// readRole reads and parses the metadata file name of the role wantType,
// whose length meta (the entry of the role above) may declare; cap is the
// role's size cap (see readDeclared).
func readRole[T header](ctx context.Context, fsys MetadataFS, name string, meta *metadata.MetaFiles, cap int64, m *metadata.Metadata[T], wantType string) (*metadata.Metadata[T], []byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	data, err := readDeclared(fsys, name, meta.Length, cap)
	if err != nil {
		return nil, nil, err
	}
	md, err := parseMeta(m, name, data, wantType)
	if err != nil {
		return nil, nil, err
	}
	return md, data, nil
}

// roleMeta returns meta["<role>.json"] of the metadata file name, which
// must be there with a version (ErrMalformed otherwise).
func roleMeta(name string, meta map[string]*metadata.MetaFiles, role string) (*metadata.MetaFiles, error) {
	key := role + ".json"
	m := meta[key]
	if m == nil || m.Version < 1 {
		return nil, fileError(name, ErrMalformed, "meta[%q] missing or without a version", key)
	}
	return m, nil
}

// readDeclared reads a file whose length the role above may declare: up to
// that length (an excess is ErrMismatch) if it is declared and within the cap,
// else up to the cap (an excess is ErrMalformed).
func readDeclared(fsys MetadataFS, name string, declared, cap int64) ([]byte, error) {
	if declared > 0 && declared <= cap {
		return readCapped(fsys, name, declared, ErrMismatch)
	}
	return readCapped(fsys, name, cap, ErrMalformed)
}

// checkStep turns the outcome of a trustedmetadata update into our errors,
// in the order of the TUF workflow: signature and hashes, then version
// consistency (want, if given), rollback against recorded, then expiry.
func checkStep(name, ref string, err error, version int64, expires time.Time, recorded int64, now time.Time, want ...int64) error {
	var expired *metadata.ErrExpiredMetadata
	if err != nil && !errors.As(err, &expired) {
		return stepError(name, ref, err, version, expires, now, want...)
	}
	// Signatures verified; remaining problems are reported together.
	var problems []error
	if len(want) > 0 && version != want[0] {
		problems = append(problems, fileError(name, ErrMismatch, "version %d, want %d", version, want[0]))
	}
	if version < recorded {
		problems = append(problems, rollbackError(name, version, recorded))
	}
	if err != nil || (!now.IsZero() && now.After(expires)) {
		problems = append(problems, expiredError(name, expires, now))
	}
	return errors.Join(problems...)
}

// stepError maps a go-tuf error to our sentinels, naming the file; ref names
// the metadata that declares the file's length and hashes.
func stepError(name, ref string, err error, version int64, expires, now time.Time, want ...int64) error {
	var (
		unsigned *metadata.ErrUnsignedMetadata
		expired  *metadata.ErrExpiredMetadata
		badVer   *metadata.ErrBadVersionNumber
		hash     *metadata.ErrLengthOrHashMismatch
		value    *metadata.ErrValue
	)
	switch {
	case errors.As(err, &unsigned):
		return fileError(name, ErrSignature, "signatures: %s", unsigned.Msg)
	case errors.As(err, &expired):
		return expiredError(name, expires, now)
	case errors.As(err, &badVer):
		if len(want) > 0 {
			return fileError(name, ErrMismatch, "version %d, want %d", version, want[0])
		}
		return fileError(name, ErrMismatch, "version: %s", badVer.Msg)
	case errors.As(err, &hash):
		return fileError(name, ErrMismatch, "length or hashes differ from %s (%s)", ref, hash.Msg)
	case errors.As(err, &value):
		return fileError(name, ErrMalformed, "%s", value.Msg)
	default:
		return fileError(name, ErrMalformed, "%v", err)
	}
}

func expiredError(name string, expires, now time.Time) error {
	return fileError(name, ErrExpired, "expired at %s (now %s)",
		expires.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
}

func rollbackError(name string, version, recorded int64) error {
	return fileError(name, ErrRollback, "version %d is lower than the recorded %d", version, recorded)
}

// parseRoot parses a root and checks its structure: _type, spec_version,
// version, the four top-level roles with a positive threshold, and every key
// they name present.
func parseRoot(name string, data []byte) (*metadata.Metadata[metadata.RootType], error) {
	r, err := parseMeta(metadata.Root(), name, data, metadata.ROOT)
	if err != nil {
		return nil, err
	}
	for _, role := range []string{metadata.ROOT, metadata.TIMESTAMP, metadata.SNAPSHOT, metadata.TARGETS} {
		ro := r.Signed.Roles[role]
		if ro == nil || len(ro.KeyIDs) == 0 || ro.Threshold < 1 {
			return nil, fileError(name, ErrMalformed, "roles[%q] missing, without keys, or threshold < 1", role)
		}
		for _, id := range ro.KeyIDs {
			if r.Signed.Keys[id] == nil {
				return nil, fileError(name, ErrMalformed, "roles[%q] names key %s not in keys", role, id)
			}
		}
	}
	return r, nil
}

// header is the common part of every role's signed section.
type header interface {
	metadata.RootType | metadata.TimestampType | metadata.SnapshotType | metadata.TargetsType
}

// parseMeta parses data into m and checks _type, spec_version 1.x and
// version >= 1. Fields are read through a small JSON view so the check does
// not depend on the role type.
func parseMeta[T header](m *metadata.Metadata[T], name string, data []byte, wantType string) (*metadata.Metadata[T], error) {
	if _, err := m.FromBytes(data); err != nil {
		return nil, fileError(name, ErrMalformed, "%v", err)
	}
	var typ, spec string
	var version int64
	switch s := any(&m.Signed).(type) {
	case *metadata.RootType:
		typ, spec, version = s.Type, s.SpecVersion, s.Version
	case *metadata.TimestampType:
		typ, spec, version = s.Type, s.SpecVersion, s.Version
	case *metadata.SnapshotType:
		typ, spec, version = s.Type, s.SpecVersion, s.Version
	case *metadata.TargetsType:
		typ, spec, version = s.Type, s.SpecVersion, s.Version
	}
	if typ != wantType {
		return nil, fileError(name, ErrMalformed, "_type %q, want %q", typ, wantType)
	}
	if major, _, _ := strings.Cut(spec, "."); major != "1" {
		return nil, fileError(name, ErrMalformed, "spec_version %q, want 1.x", spec)
	}
	if version < 1 {
		return nil, fileError(name, ErrMalformed, "version %d, want >= 1", version)
	}
	return m, nil
}

// sameKeys reports whether two roots trust the same keys for role.
func sameKeys(a, b *metadata.Metadata[metadata.RootType], role string) bool {
	ka, kb := slices.Clone(a.Signed.Roles[role].KeyIDs), slices.Clone(b.Signed.Roles[role].KeyIDs)
	slices.Sort(ka)
	slices.Sort(kb)
	return slices.Equal(ka, kb) && a.Signed.Roles[role].Threshold == b.Signed.Roles[role].Threshold
}

// recoverMalformed turns a panic inside go-tuf on hostile input into an
// ErrMalformed error: verification never panics on input.
func recoverMalformed(err *error) {
	if r := recover(); r != nil {
		*err = &FileError{Msg: fmt.Sprintf("metadata: unexpected structure (%v)", r), Err: ErrMalformed}
	}
}
