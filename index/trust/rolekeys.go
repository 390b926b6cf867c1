package trust

import (
	"crypto"
	"fmt"

	"github.com/theupdateframework/go-tuf/v2/metadata"
)

// RoleKeys returns the public keys the newest verified root names for a
// role ("root", "targets", "snapshot", "timestamp"): the keys a signature
// by the registry's signer outside TUF (a git commit's) may be checked
// against in root mode.
func (t *Trusted) RoleKeys(role string) ([]crypto.PublicKey, error) {
	return RootRoleKeys(t.RootJSON, role)
}

// RootRoleKeys returns the public keys the root.json rootJSON names for a
// role (see Trusted.RoleKeys); it checks no signature.
func RootRoleKeys(rootJSON []byte, role string) ([]crypto.PublicKey, error) {
	root := &metadata.Metadata[metadata.RootType]{}
	if _, err := root.FromBytes(rootJSON); err != nil {
		return nil, fmt.Errorf("root: %w", err)
	}
	r, ok := root.Signed.Roles[role]
	if !ok {
		return nil, fmt.Errorf("root: no role %q", role)
	}
	var keys []crypto.PublicKey
	for _, id := range r.KeyIDs {
		k, ok := root.Signed.Keys[id]
		if !ok {
			continue
		}
		pub, err := k.ToPublicKey()
		if err != nil {
			return nil, fmt.Errorf("root: key %s: %w", id, err)
		}
		keys = append(keys, pub)
	}
	return keys, nil
}
