package index

import (
	"crypto/sha256"
	"encoding/hex"
)

// The one digest form airvsx writes: "sha256:" and 64 lowercase hex
// digits. These helpers are the only place that spells it; parse with
// store.ValidDigest.

// DigestBytes returns "sha256:<hex>" of b.
func DigestBytes(b []byte) string { return SHA256Digest(SHA256Hex(b)) }

// SHA256Hex returns the lowercase hex of b's SHA-256 sum, without the
// "sha256:" (as catalog entries record a vsix's, and as Open VSX's
// .sha256 files hold it).
func SHA256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// DigestOfSum returns "sha256:<hex>" of a SHA-256 sum already computed,
// such as hash.Hash.Sum(nil) of a sha256.New.
func DigestOfSum(sum []byte) string { return SHA256Digest(hex.EncodeToString(sum)) }

// SHA256Digest returns "sha256:" followed by hexSum, the lowercase hex of
// a SHA-256 sum (as catalog entries and annotations record it). It does
// not check hexSum.
func SHA256Digest(hexSum string) string { return "sha256:" + hexSum }
