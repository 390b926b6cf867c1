package trust

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
)

// Unverified is a catalog read without checking any signature: nothing in
// it is vouched for by anyone. Commands show it only with an explicit flag
// and a warning (site --unverified puts a banner on every page).
type Unverified struct {
	Catalog *index.Catalog
	// Digest is "sha256:<hex>" of the catalog bytes.
	Digest string
	// Expires is the earliest expiry the (unchecked) metadata claims.
	Expires time.Time
	// Why says why the catalog is not verified.
	Why string
}

// ReadUnverified reads the catalog the way Load does but checks no
// signature and no expiry: first through the registry's own chain from its
// 1.root.json (so a consistent registry still has its signatures and
// expiry checked against itself), and where that fails by following
// timestamp → snapshot → targets → catalog, checking only that the
// catalog has the length and sha256 the targets metadata lists. why is
// recorded in the result. A registry without a catalog gives an error
// wrapping ErrNoCatalog.
func ReadUnverified(ctx context.Context, st store.Store, now func() time.Time, why string) (*Unverified, error) {
	cat, tr, err := ReadCatalog(ctx, st, CatalogOptions{Load: LoadOptions{Now: now}})
	if err == nil {
		return &Unverified{Catalog: cat, Digest: tr.CatalogDigest, Expires: tr.Expires(), Why: why}, nil
	}
	if err := hasCatalog(ctx, st); err != nil {
		return nil, err
	}
	if why != "" {
		why += "; "
	}
	why += err.Error()
	u, err := readBare(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("read the catalog unverified: %w", err)
	}
	u.Why = why
	return u, nil
}

// readBare follows the metadata without checking any signature or expiry.
func readBare(ctx context.Context, st store.Store) (*Unverified, error) {
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
			return nil, &FileError{File: displayName(name), Err: err}
		}
		return &m, nil
	}
	ts, err := read(TimestampFile, MaxTimestampBytes)
	if err != nil {
		return nil, err
	}
	snapName := snapshotName(ts.Signed.Meta["snapshot.json"].Version)
	snap, err := read(snapName, MaxSnapshotBytes)
	if err != nil {
		return nil, err
	}
	tgName := targetsName(snap.Signed.Meta["targets.json"].Version)
	tg, err := read(tgName, MaxTargetsBytes)
	if err != nil {
		return nil, err
	}
	target, ok := tg.Signed.Targets[CatalogTarget]
	sum := target.Hashes["sha256"]
	if !ok || len(sum) != 64 || target.Length <= 0 || target.Length > index.MaxCatalogBytes {
		return nil, fileError(tgName, nil, "no usable %s target", CatalogTarget)
	}
	name := catalogName(sum)
	b, err := st.ReadMetadata(ctx, name, target.Length)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) != target.Length || index.SHA256Hex(b) != sum {
		return nil, fileError(name, nil, "does not match the length and sha256 in %s", displayName(tgName))
	}
	cat, err := index.DecodeCatalog(bytes.NewReader(b))
	if err != nil {
		return nil, &FileError{File: displayName(name), Err: err}
	}
	// The shards, each checked against the sha256 the head lists.
	for _, ref := range cat.Shards {
		data, err := st.ReadMetadata(ctx, ShardName(ref), ref.Size)
		if err != nil {
			return nil, err
		}
		if int64(len(data)) != ref.Size || index.DigestBytes(data) != ref.Digest {
			return nil, fileError(ShardName(ref), nil, "does not match the length and sha256 in %s", displayName(name))
		}
		entries, err := index.DecodeShard(bytes.NewReader(data), cat, ref)
		if err != nil {
			return nil, &FileError{File: displayName(ShardName(ref)), Err: err}
		}
		cat.Entries = append(cat.Entries, entries...)
	}
	cat.Normalize()
	exp := ts.Signed.Expires
	for _, m := range []*meta{snap, tg} {
		if m.Signed.Expires.Before(exp) {
			exp = m.Signed.Expires
		}
	}
	return &Unverified{Catalog: cat, Digest: index.DigestBytes(b), Expires: exp.UTC()}, nil
}
