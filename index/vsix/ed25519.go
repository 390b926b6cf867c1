package vsix

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha512"
	"hash"

	"filippo.io/edwards25519"
)

// UpstreamVerifier checks a pure Ed25519 signature (RFC 8032, with the
// checks of crypto/ed25519.Verify) over a message written to it in pieces,
// so a large package is never held in memory: pure Ed25519 hashes
// R || A || M with SHA-512, and R and A are known before M.
type UpstreamVerifier struct {
	h   hash.Hash
	pub ed25519.PublicKey
	sig []byte
}

// NewUpstreamVerifier starts checking sig by pub; write the message, then
// call Verify.
func NewUpstreamVerifier(pub ed25519.PublicKey, sig []byte) *UpstreamVerifier {
	v := &UpstreamVerifier{h: sha512.New(), pub: pub, sig: sig}
	if len(sig) == ed25519.SignatureSize && len(pub) == ed25519.PublicKeySize {
		v.h.Write(sig[:32])
		v.h.Write(pub)
	}
	return v
}

// Write feeds the next bytes of the message. It never fails.
func (v *UpstreamVerifier) Write(p []byte) (int, error) { return v.h.Write(p) }

// Verify reports whether the signature is valid over what was written.
func (v *UpstreamVerifier) Verify() bool {
	if len(v.pub) != ed25519.PublicKeySize || len(v.sig) != ed25519.SignatureSize || v.sig[63]&224 != 0 {
		return false
	}
	A, err := new(edwards25519.Point).SetBytes(v.pub)
	if err != nil {
		return false
	}
	k, err := edwards25519.NewScalar().SetUniformBytes(v.h.Sum(nil))
	if err != nil {
		return false
	}
	S, err := edwards25519.NewScalar().SetCanonicalBytes(v.sig[32:])
	if err != nil {
		return false
	}
	minusA := new(edwards25519.Point).Negate(A)
	R := new(edwards25519.Point).VarTimeDoubleScalarBaseMult(k, minusA, S)
	return bytes.Equal(v.sig[:32], R.Bytes())
}
