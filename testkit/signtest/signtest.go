// Package signtest makes the signing keys tests sign with: a fresh ECDSA
// P-256 signer, as airvsx keygen makes, and a signer's or verifier's
// public key, each failing the test at once on an error. It imports no
// airvsx package, so the trust package's own tests can use it too.
package signtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"testing"

	"github.com/sigstore/sigstore/pkg/signature"
)

// Signer returns a fresh ECDSA P-256 signer.
func Signer(tb testing.TB) signature.SignerVerifier {
	tb.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	sv, err := signature.LoadECDSASignerVerifier(k, crypto.SHA256)
	if err != nil {
		tb.Fatal(err)
	}
	return sv
}

// PublicKeyer is what has a public key: a signer or a verifier.
type PublicKeyer interface {
	PublicKey(...signature.PublicKeyOption) (crypto.PublicKey, error)
}

// PublicKey returns s's public key.
func PublicKey(tb testing.TB, s PublicKeyer) crypto.PublicKey {
	tb.Helper()
	p, err := s.PublicKey()
	if err != nil {
		tb.Fatal(err)
	}
	return p
}
