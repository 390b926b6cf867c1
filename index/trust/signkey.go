package trust

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/theupdateframework/go-tuf/v2/metadata"
)

// ErrUntrustedKey is wrapped when a signing key is not one the registry's
// root trusts for the role it would sign for: what it signed would not
// verify there.
var ErrUntrustedKey = errors.New("signing key not trusted by the registry's root")

// KeyError is a signing key that a registry's root does not trust for a
// role. It wraps ErrUntrustedKey and ErrSignature.
type KeyError struct {
	// Registry names the registry in messages ("" reads "the registry").
	Registry string
	// KeyID is the TUF key ID of the key given.
	KeyID string
	// Role is the role the key would sign for ("targets", "snapshot",
	// "timestamp"; a git commit is checked against the targets keys).
	Role string
	// RootVersion is the version of the root read, metadata/N.root.json.
	RootVersion int64
	// Trusted are the key IDs the root trusts for Role, sorted.
	Trusted []string
}

func (e *KeyError) Error() string {
	reg := "the registry"
	if e.Registry != "" {
		reg = e.Registry
	}
	keys := "key " + strings.Join(e.Trusted, ", ")
	if len(e.Trusted) != 1 {
		keys = "keys " + strings.Join(e.Trusted, ", ")
	}
	if len(e.Trusted) == 0 {
		keys = "no key"
	}
	return fmt.Sprintf("key %s is not trusted for the %s role by %s's root (%s), which trusts %s: "+
		"what it signs would not verify; sign with the registry's own key (the PREFIX.key whose PREFIX.pub is the registry's --key), "+
		"or rotate the registry's root to trust this key first",
		e.KeyID, e.Role, reg, displayName(rootName(e.RootVersion)), keys)
}

// Unwrap returns ErrUntrustedKey and ErrSignature.
func (e *KeyError) Unwrap() []error { return []error{ErrUntrustedKey, ErrSignature} }

// CheckSigningKey checks that pub is a key the root rootJSON trusts for
// each of roles, and returns a *KeyError naming the first role that does
// not trust it and the keys that role trusts. rootJSON must already be
// verified (the newest root of a verified chain, Trusted.RootJSON): no
// signature is checked here. registry names the registry in messages.
// It is the check to make before anything is signed or written, so that
// a wrong key stops a command before its work rather than at its end.
func CheckSigningKey(registry string, rootJSON []byte, pub crypto.PublicKey, roles ...string) (err error) {
	defer recoverMalformed(&err)
	root, err := parseRoot(RootFile, rootJSON)
	if err != nil {
		return err
	}
	return checkRoles(registry, root, pub, roles)
}

// CheckPublisher checks, before anything is downloaded or written, that
// Publish would accept a signer whose public key is pub for the
// repository in fsys: the newest root of its chain (verified from its own
// 1.root.json, as Publish reads it: signatures, hashes and versions, not
// expiry) must trust pub for the targets, snapshot and timestamp roles.
// A repository without a root yet gives nil: its first publish makes the
// root from the signer's key. Errors are a *KeyError, or why the chain
// could not be read.
func CheckPublisher(ctx context.Context, registry string, fsys MetadataFS, pub crypto.PublicKey) error {
	cur, err := currentChain(ctx, fsys)
	if err != nil || cur == nil {
		return err
	}
	return checkRoles(registry, cur.tm.Root, pub, []string{metadata.TARGETS, metadata.SNAPSHOT, metadata.TIMESTAMP})
}

// checkRoles is CheckSigningKey on a parsed root.
func checkRoles(registry string, root *metadata.Metadata[metadata.RootType], pub crypto.PublicKey, roles []string) error {
	if _, err := p256Public(pub); err != nil {
		return fmt.Errorf("signing key: %w", err)
	}
	id, err := KeyID(pub)
	if err != nil {
		return err
	}
	for _, role := range roles {
		r, ok := root.Signed.Roles[role]
		if ok && slices.Contains(r.KeyIDs, id) {
			continue
		}
		var trusted []string
		if ok {
			trusted = slices.Sorted(slices.Values(r.KeyIDs))
		}
		return &KeyError{Registry: registry, KeyID: id, Role: role, RootVersion: root.Signed.Version, Trusted: trusted}
	}
	return nil
}
