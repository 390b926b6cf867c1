package vsix

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"

	"github.com/airvsx/airvsx/internal/safefile"
)

// Open VSX signs every package it publishes (since 2023) with Ed25519 over
// the whole .vsix, and ships the signature in a "sigzip": a zip holding
// .signature.sig (the 64-byte signature), .signature.manifest (sizes and
// hashes of the package and its entries) and an empty .signature.p7s that
// VS Code's downloader insists on.

// Names inside a sigzip.
const (
	SigzipSignature = ".signature.sig"
	SigzipManifest  = ".signature.manifest"
	SigzipP7S       = ".signature.p7s"
)

// MaxSigzipBytes caps a sigzip; real ones are a few KiB.
const MaxSigzipBytes = 4 << 20

// ErrUpstreamSignature is wrapped by every failed upstream signature check.
var ErrUpstreamSignature = errors.New("upstream signature does not verify")

// sigzipOptions are the archive limits for a sigzip.
var sigzipOptions = Options{MaxArchiveBytes: MaxSigzipBytes, MaxEntries: 16, MaxTotalBytes: 64 << 20}

// ReadSigzipSignature returns the Ed25519 signature in a sigzip, after
// checking the sigzip against the archive rules.
func ReadSigzipSignature(sigzip []byte) ([]byte, error) {
	a, err := NewReader(bytes.NewReader(sigzip), int64(len(sigzip)), sigzipOptions)
	if err != nil {
		return nil, fmt.Errorf("sigzip: %w", err)
	}
	defer a.Close()
	sig, err := a.ReadFile(SigzipSignature)
	if err != nil {
		return nil, fmt.Errorf("sigzip: %s: %w", SigzipSignature, err)
	}
	if len(sig) != ed25519.SignatureSize {
		return nil, fmt.Errorf("sigzip: %s: %d bytes; want an Ed25519 signature of %d: %w", SigzipSignature, len(sig), ed25519.SignatureSize, ErrUpstreamSignature)
	}
	return sig, nil
}

// ParseUpstreamKey parses an upstream public key: a PEM "PUBLIC KEY" block
// holding an Ed25519 SPKI key, as Open VSX publishes at
// /api/-/public-key/{id}.
func ParseUpstreamKey(pemBytes []byte) (ed25519.PublicKey, error) {
	block, rest := pem.Decode(pemBytes)
	if block == nil {
		return nil, errors.New("upstream key: no PEM block")
	}
	if len(bytes.TrimSpace(rest)) != 0 {
		return nil, errors.New("upstream key: data after the PEM block")
	}
	if block.Type != "PUBLIC KEY" {
		return nil, fmt.Errorf("upstream key: PEM type %q; want PUBLIC KEY", block.Type)
	}
	k, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("upstream key: %w", err)
	}
	pub, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("upstream key: %T; want Ed25519", k)
	}
	return pub, nil
}

// VerifyUpstreamSignature checks that sigzip holds upstream's Ed25519
// signature, by pub, over the whole file at vsixPath. The file is streamed
// through the check, so memory stays flat whatever its size.
func VerifyUpstreamSignature(sigzip []byte, pub ed25519.PublicKey, vsixPath string) error {
	sig, err := ReadSigzipSignature(sigzip)
	if err != nil {
		return err
	}
	f, _, err := safefile.Open(vsixPath, -1)
	if err != nil {
		return err
	}
	defer f.Close()
	v := NewUpstreamVerifier(pub, sig)
	if _, err := io.Copy(v, f); err != nil {
		return fmt.Errorf("read %s: %w", vsixPath, err)
	}
	if !v.Verify() {
		return fmt.Errorf("%s: %w", vsixPath, ErrUpstreamSignature)
	}
	return nil
}
