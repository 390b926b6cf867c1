package trust

import (
	"errors"
	"fmt"

	"github.com/airvsx/airvsx/index"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/theupdateframework/go-tuf/v2/metadata"
)

// Anchor is what an operator trusts, given out of band: a pinned root
// (a root.json) or the registry signer's public key (PREFIX.pub). Exactly one of Root and Key is set. Every command that
// takes an anchor checks it on every run (see Check).
type Anchor struct {
	// Root is the bytes of a root.json the operator pinned.
	Root []byte
	// Key is the signer's public key: the registry's 1.root.json must be
	// signed by it.
	Key signature.Verifier
	// RootName names Root in messages (the CLI names the flag that gave
	// it). Default "the pinned root".
	RootName string
}

// ErrNoAnchor is wrapped when an Anchor has neither a root nor a key, or
// both.
var ErrNoAnchor = errors.New("give exactly one trust anchor: a pinned root (a root.json) or the signer's public key (PREFIX.pub)")

// AnchorError is a trust anchor file LoadAnchor could not use: the pinned
// root (Root) or the signer's public key, the path given, and why. The
// CLI words it with the flag that named the file.
type AnchorError struct {
	Root bool   // the file is the pinned root; false: the public key
	Path string // as given
	// NotRoot, for a pinned root that was read, says why it is not a TUF
	// root.json (the parser's reason); "" when the file could not be read.
	NotRoot string
	Err     error // the error reading the file; nil with NotRoot
}

func (e *AnchorError) Error() string {
	switch {
	case e.Root && e.NotRoot != "":
		return fmt.Sprintf("root %s is not a TUF root.json (%s)", e.Path, e.NotRoot)
	case e.Root:
		return "root: " + e.Err.Error()
	}
	return "key: " + e.Err.Error()
}

// Unwrap returns the error reading the file.
func (e *AnchorError) Unwrap() error { return e.Err }

// LoadAnchor resolves the pinned root's path and the signer's public
// key's path: exactly one must be given. The root file is read with the same care as any untrusted input
// (a regular file of at most MaxRootBytes); the key must be an ECDSA P-256
// public key in PEM.
func LoadAnchor(rootPath, keyPath string) (Anchor, error) {
	switch {
	case (rootPath == "") == (keyPath == ""):
		return Anchor{}, ErrNoAnchor
	case rootPath != "":
		b, err := readKeyFileCapped(rootPath, MaxRootBytes)
		if err != nil {
			return Anchor{}, &AnchorError{Root: true, Path: rootPath, Err: err}
		}
		// The user's file, named as theirs: not the registry's
		// metadata/root.json, which nothing has read yet.
		if _, err := RootKeyIDs(b); err != nil {
			why := err.Error()
			var fe *FileError
			if errors.As(err, &fe) {
				why = fe.Reason()
				if fe.Err == ErrMalformed && fe.Msg != "" {
					why = fe.Msg
				}
			}
			return Anchor{}, &AnchorError{Root: true, Path: rootPath, NotRoot: why}
		}
		return Anchor{Root: b}, nil
	}
	v, err := LoadVerifier(keyPath)
	if err != nil {
		return Anchor{}, &AnchorError{Path: keyPath, Err: err}
	}
	return Anchor{Key: v}, nil
}

// Mode is "key" or "root".
func (a Anchor) Mode() string {
	if a.Key != nil {
		return "key"
	}
	return "root"
}

// check reports whether exactly one of Root and Key is set.
func (a Anchor) check() error {
	if (a.Root == nil) == (a.Key == nil) {
		return ErrNoAnchor
	}
	return nil
}

// KeyID returns the TUF key ID of a key anchor ("" for a root anchor).
func (a Anchor) KeyID() (string, error) {
	if a.Key == nil {
		return "", nil
	}
	pub, err := a.Key.PublicKey()
	if err != nil {
		return "", fmt.Errorf("anchor key: %w", err)
	}
	return KeyID(pub)
}

// String names the anchor for messages: "key <id>" or "root sha256:<hex>".
func (a Anchor) String() string {
	if a.Key != nil {
		id, err := a.KeyID()
		if err != nil {
			return "key (unreadable)"
		}
		return "key " + id
	}
	return "root " + index.DigestBytes(a.Root)
}

// RootKeyIDs returns the key IDs a root.json trusts for the root role,
// sorted, without checking any signature: for messages that name whose
// registry a root is (copy refusing another operator's registry).
func RootKeyIDs(root []byte) (ids []string, err error) {
	defer recoverMalformed(&err)
	r, err := parseRoot("root.json", root)
	if err != nil {
		return nil, err
	}
	return roleInfo(r, metadata.ROOT, r.Signed.Version, r.Signed.Expires).KeyIDs, nil
}
