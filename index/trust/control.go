package trust

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/control"
)

// A catalog's head pins the extension control lists the registry carries
// (index.ControlRef) as it pins its shards: each list is stored by
// content, byte for byte, as targets/<sha256hex>.control.json, and the
// head's signature covers it through its digest and size. A list changed
// on disk, or one of another catalog, fails like a changed shard.

// controlFile matches the names of the content-addressed control lists.
var controlFile = regexp.MustCompile(`^targets/([0-9a-f]{64})\.control\.json$`)

// controlName is the metadata file of a control list.
func controlName(digest string) string {
	return TargetsDir + "/" + strings.TrimPrefix(digest, "sha256:") + ".control.json"
}

// ControlPath is how reports name a control list's file:
// "metadata/targets/<hex>.control.json".
func ControlPath(ref index.ControlRef) string { return displayName(controlName(ref.Digest)) }

// ControlFile is one control list read through a verified head
// (control.Load makes them a control.Set).
type ControlFile = control.Pinned

// PutControl stores data, a control list, by content in the metadata
// (targets/<sha256hex>.control.json), for the next PublishCatalog to pin
// in the head's Control; nothing is committed until that publish's
// timestamp.json. A list already stored with these bytes is not written
// again. It returns the list's "sha256:<hex>".
func PutControl(ctx context.Context, fsys MetadataFS, data []byte) (string, error) {
	if len(data) == 0 || len(data) > index.MaxControlBytes {
		return "", fmt.Errorf("publish: control list is %d bytes, want 1..%d", len(data), index.MaxControlBytes)
	}
	digest := index.DigestBytes(data)
	name := controlName(digest)
	if have, err := readCapped(withContext(ctx, fsys), name, int64(len(data)), ErrMismatch); err == nil && string(have) == string(data) {
		return digest, nil
	}
	w := &writer{ctx: ctx, fsys: fsys}
	if err := w.write(name, data); err != nil {
		return "", err
	}
	return digest, nil
}

// Control reads the control lists head pins (a head this chain
// verified), each at most its ref's size and checked against its length
// and sha256. Errors name the list's file: a changed or truncated list
// wraps ErrMismatch, a missing one ErrMissing. A head that pins none
// returns none.
func (t *Trusted) Control(ctx context.Context, head *index.Catalog) ([]ControlFile, error) {
	if len(head.Control) == 0 {
		return nil, nil
	}
	if t.meta == nil {
		return nil, errors.New("read control list: the chain was not loaded from a registry")
	}
	out := make([]ControlFile, 0, len(head.Control))
	for _, ref := range head.Control {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		name := controlName(ref.Digest)
		data, err := readCapped(withContext(ctx, t.meta), name, ref.Size, ErrMismatch)
		if err != nil {
			return nil, err
		}
		if int64(len(data)) != ref.Size || index.DigestBytes(data) != ref.Digest {
			return nil, fileError(name, ErrMismatch, "length or sha256 differs from %s control (origin %s: length %d, %s)",
				CatalogPath(t.CatalogDigest), ref.Origin, ref.Size, ref.Digest)
		}
		out = append(out, ControlFile{Ref: ref, Data: data})
	}
	return out, nil
}
