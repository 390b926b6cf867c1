package index

import (
	"fmt"
	"regexp"
	"time"
)

// MaxControlBytes caps an extension control list (a kill list) a catalog
// pins.
const MaxControlBytes = 8 << 20

// ControlUpstream is the origin of the control list sync fetched from the
// URL the admin gave; an admin's own list has the origin "file:NAME".
const ControlUpstream = "upstream"

// controlOrigin is what an origin may be: "upstream" or "file:NAME".
var controlOrigin = regexp.MustCompile(`^(upstream|file:[A-Za-z0-9][A-Za-z0-9._-]{0,63})$`)

// ControlRef pins one extension control list (the kill list VS Code reads
// from its gallery's controlUrl) in a catalog's head: the file is stored
// by content beside the catalog, byte for byte as it was fetched or
// given, and the head's signature covers it through Digest and Size.
type ControlRef struct {
	// Origin is ControlUpstream or "file:NAME" (an admin's own list).
	Origin string `json:"origin"`
	// Source is where the list came from: the URL fetched, or the file's
	// name.
	Source string `json:"source"`
	// FetchedAt is when sync last fetched (or read) the list and found it
	// these bytes; it never goes backwards from one catalog to the next.
	FetchedAt time.Time `json:"fetchedAt"`
	// Digest and Size are the file's sha256 ("sha256:<hex>") and length.
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// validateControl checks the catalog's control lists: valid origins, each
// once, a digest and a size within MaxControlBytes.
func validateControl(refs []ControlRef) []error {
	var errs []error
	seen := map[string]bool{}
	for i, r := range refs {
		if !controlOrigin.MatchString(r.Origin) {
			errs = append(errs, fmt.Errorf("control[%d]: origin %q is not %q or file:NAME", i, r.Origin, ControlUpstream))
		}
		if seen[r.Origin] {
			errs = append(errs, fmt.Errorf("control[%d]: origin %q twice", i, r.Origin))
		}
		seen[r.Origin] = true
		if !validDigest(r.Digest) {
			errs = append(errs, fmt.Errorf("control[%d]: digest %q is not sha256:<64 lowercase hex>", i, r.Digest))
		}
		if r.Size < 1 || r.Size > MaxControlBytes {
			errs = append(errs, fmt.Errorf("control[%d]: size %d outside 1..%d", i, r.Size, MaxControlBytes))
		}
		if r.FetchedAt.IsZero() {
			errs = append(errs, fmt.Errorf("control[%d]: no fetchedAt", i))
		}
	}
	return errs
}
