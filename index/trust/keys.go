package trust

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/airvsx/airvsx/internal/atomicfile"
	"github.com/airvsx/airvsx/internal/safefile"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/theupdateframework/go-tuf/v2/metadata"
)

// Key file conventions. airvsx keys are ECDSA P-256 with SHA-256, in cosign's
// formats, so the same files work with stock cosign:
//
//   - private key: PEM "ENCRYPTED SIGSTORE PRIVATE KEY", a PKCS#8 key sealed
//     with scrypt + nacl/secretbox under a password (cosign before v2 wrote
//     the type "ENCRYPTED COSIGN PRIVATE KEY"; both are read). An empty
//     password is allowed and still encrypts.
//   - public key: PEM "PUBLIC KEY" (PKIX).
//
// Reading also accepts an unencrypted private key (PEM "PRIVATE KEY", PKCS#8,
// or "EC PRIVATE KEY", SEC 1) and a PKCS#8 PBES2 "ENCRYPTED PRIVATE KEY", so
// keys made by openssl can be used; the password is then ignored for the
// unencrypted types. Every other key type (RSA, Ed25519, other curves) is
// refused.
const (
	// KeySuffix is the file name suffix of a private key written by WriteKeyPair.
	KeySuffix = ".key"
	// PubSuffix is the file name suffix of a public key written by WriteKeyPair.
	PubSuffix = ".pub"
	// maxKeyFileBytes caps how much of a key file is read.
	maxKeyFileBytes = 64 << 10
)

// ErrPassword is wrapped by the errors of LoadSigner and ParseSigner when an
// encrypted private key does not decrypt with the password given: the password
// is wrong (or the file is damaged; the two cannot be told apart).
var ErrPassword = errors.New("wrong password")

// GenerateKeyPair returns a new ECDSA P-256 key pair in cosign's format: the
// private key as PEM "ENCRYPTED SIGSTORE PRIVATE KEY" (scrypt + secretbox,
// encrypted with password; a nil or empty password is allowed and still
// encrypts) and the public key as PEM "PUBLIC KEY".
func GenerateKeyPair(password []byte) (privPEM, pubPEM []byte, err error) {
	privPEM, pubPEM, err = cryptoutils.GeneratePEMEncodedECDSAKeyPair(elliptic.P256(), cryptoutils.StaticPasswordFunc(nonNil(password)))
	if err != nil {
		return nil, nil, fmt.Errorf("generate key pair: %w", err)
	}
	return privPEM, pubPEM, nil
}

// nonNil turns a nil password into the empty one: cryptoutils treats nil as
// "do not encrypt" and "do not decrypt", and we always want encryption.
func nonNil(password []byte) []byte {
	if password == nil {
		return []byte{}
	}
	return password
}

// LoadSigner reads the private key file path (written by WriteKeyPair, or an
// existing cosign.key, including the legacy "ENCRYPTED COSIGN PRIVATE KEY"
// type) and decrypts it with password (nil means the empty password). The key
// must be ECDSA P-256; see ParseSigner.
func LoadSigner(path string, password []byte) (signature.SignerVerifier, error) {
	data, err := readKeyFile(path)
	if err != nil {
		return nil, err
	}
	return ParseSigner(path, data, password)
}

// ParseSigner is LoadSigner for PEM bytes already read; name is used in error
// messages. A wrong password gives an error wrapping ErrPassword; a key that is
// not ECDSA P-256 gives an error naming the key type. The signer signs with
// SHA-256 and ASN.1 DER ECDSA signatures, as cosign and TUF expect.
func ParseSigner(name string, pemBytes, password []byte) (signature.SignerVerifier, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return nil, fmt.Errorf("%s: no PEM block found", name)
	}
	var (
		priv crypto.PrivateKey
		err  error
	)
	switch block.Type {
	case string(cryptoutils.EncryptedSigstorePrivateKeyPEMType), "ENCRYPTED COSIGN PRIVATE KEY", "ENCRYPTED PRIVATE KEY":
		priv, err = cryptoutils.UnmarshalPEMToPrivateKey(pemBytes, cryptoutils.StaticPasswordFunc(nonNil(password)))
		if err != nil {
			return nil, fmt.Errorf("%s: decrypt %s: %w (or the file is damaged): %w", name, block.Type, ErrPassword, err)
		}
	case string(cryptoutils.PrivateKeyPEMType), string(cryptoutils.ECPrivateKeyPEMType), string(cryptoutils.PKCS1PrivateKeyPEMType):
		// Legacy RFC 1423 encryption (a Proc-Type header) is refused.
		if _, encrypted := block.Headers["Proc-Type"]; encrypted {
			return nil, fmt.Errorf("%s: legacy PEM encryption (Proc-Type header) is not supported; convert the key with cosign import-key-pair", name)
		}
		priv, err = cryptoutils.UnmarshalPEMToPrivateKey(pemBytes, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: parse %s: %w", name, block.Type, err)
		}
	default:
		return nil, fmt.Errorf("%s: PEM type %q is not a private key airvsx reads (want %q)", name, block.Type, cryptoutils.EncryptedSigstorePrivateKeyPEMType)
	}
	ec, ok := priv.(*ecdsa.PrivateKey)
	if !ok || ec.Curve != elliptic.P256() {
		return nil, fmt.Errorf("%s: %w", name, errKeyType(priv))
	}
	sv, err := signature.LoadECDSASignerVerifier(ec, crypto.SHA256)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return sv, nil
}

// LoadVerifier reads the public key file path: PEM "PUBLIC KEY" (PKIX),
// ECDSA P-256 only. The verifier checks SHA-256 ECDSA signatures.
func LoadVerifier(path string) (signature.Verifier, error) {
	data, err := readKeyFile(path)
	if err != nil {
		return nil, err
	}
	return ParseVerifier(path, data)
}

// ParseVerifier is LoadVerifier for PEM bytes already read; name is used in
// error messages.
func ParseVerifier(name string, pemBytes []byte) (signature.Verifier, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return nil, fmt.Errorf("%s: no PEM block found", name)
	}
	if block.Type != string(cryptoutils.PublicKeyPEMType) {
		return nil, fmt.Errorf("%s: PEM type %q is not a public key (want %q)", name, block.Type, cryptoutils.PublicKeyPEMType)
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: parse public key: %w", name, err)
	}
	ec, err := p256Public(pub)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	v, err := signature.LoadECDSAVerifier(ec, crypto.SHA256)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return v, nil
}

// KeyID returns the TUF key ID of pub: the hex SHA-256 of the key's canonical
// TUF JSON form. It is the ID that metadata signatures and error messages use.
func KeyID(pub crypto.PublicKey) (string, error) {
	k, err := metadata.KeyFromPublicKey(pub)
	if err != nil {
		return "", fmt.Errorf("key id: %w", err)
	}
	id, err := k.ID()
	if err != nil {
		return "", fmt.Errorf("key id: %w", err)
	}
	return id, nil
}

// WriteKeyPair generates a key pair (see GenerateKeyPair) and writes it as
// prefix+".key" (mode 0600) and prefix+".pub" (mode 0644). Each file is written
// to a temporary file in the same directory, fsynced, and then linked into
// place so that an existing file is never overwritten: if either file exists,
// WriteKeyPair writes nothing and returns an error wrapping fs.ErrExist.
func WriteKeyPair(prefix string, password []byte) (keyPath, pubPath string, err error) {
	if err := CheckKeyPrefix(prefix); err != nil {
		return "", "", fmt.Errorf("write key pair: %w", err)
	}
	keyPath, pubPath = prefix+KeySuffix, prefix+PubSuffix
	for _, p := range []string{keyPath, pubPath} {
		if _, err := os.Lstat(p); err == nil {
			return "", "", fmt.Errorf("write key pair: %s: %w", p, os.ErrExist)
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", "", fmt.Errorf("write key pair: %w", err)
		}
	}
	privPEM, pubPEM, err := GenerateKeyPair(password)
	if err != nil {
		return "", "", err
	}
	if err := atomicfile.WriteExclusive(keyPath, privPEM, 0o600); err != nil {
		return "", "", fmt.Errorf("write key pair: %w", err)
	}
	if err := atomicfile.WriteExclusive(pubPath, pubPEM, 0o644); err != nil {
		// Only remove the private key we created a moment ago.
		os.Remove(keyPath)
		return "", "", fmt.Errorf("write key pair: %w", err)
	}
	return keyPath, pubPath, nil
}

// CheckKeyPrefix reports whether prefix can name a key pair
// (PREFIX.key, PREFIX.pub): not empty, and not a directory ("/", "dir/",
// ".", an existing directory), which would make hidden files named ".key"
// and ".pub" inside it.
func CheckKeyPrefix(prefix string) error {
	if prefix == "" {
		return errors.New("key prefix is empty; give a path prefix such as ./airvsx")
	}
	base := filepath.Base(prefix)
	isDir := strings.HasSuffix(prefix, "/") || strings.HasSuffix(prefix, string(filepath.Separator)) || base == "." || base == ".." || base == string(filepath.Separator)
	if fi, err := os.Stat(prefix); err == nil && fi.IsDir() {
		isDir = true
	}
	if isDir {
		return fmt.Errorf("key prefix %q names a directory, which would make hidden files %s and %s in it; give a file prefix such as %s",
			prefix, KeySuffix, PubSuffix, filepath.Join(prefix, "airvsx"))
	}
	return nil
}

// readKeyFile reads a key file of at most maxKeyFileBytes.
func readKeyFile(path string) ([]byte, error) {
	data, err := readKeyFileCapped(path, maxKeyFileBytes)
	if errors.Is(err, errTooLarge) {
		return nil, fmt.Errorf("%s: larger than %d bytes: not a key file", path, maxKeyFileBytes)
	}
	return data, err
}

var errTooLarge = safefile.ErrTooLarge

// readKeyFileCapped reads a user-named regular file of at most max bytes.
// Anything that is not a regular file (a FIFO, a device, a directory) is
// refused before it is opened for reading, so no read can block.
func readKeyFileCapped(path string, max int64) ([]byte, error) {
	return safefile.ReadFile(path, max)
}

// p256Public returns pub as the ECDSA P-256 public key it must be, else
// errKeyType.
func p256Public(pub crypto.PublicKey) (*ecdsa.PublicKey, error) {
	ec, ok := pub.(*ecdsa.PublicKey)
	if !ok || ec.Curve != elliptic.P256() {
		return nil, errKeyType(pub)
	}
	return ec, nil
}

// errKeyType refuses the key k, which is not ECDSA P-256, naming its type.
func errKeyType(k any) error {
	return fmt.Errorf("key type %s is not supported: airvsx keys are ECDSA P-256", keyTypeName(k))
}

// keyTypeName names a key's algorithm for error messages.
func keyTypeName(k any) string {
	switch k := k.(type) {
	case *ecdsa.PrivateKey:
		return "ECDSA " + k.Curve.Params().Name
	case *ecdsa.PublicKey:
		return "ECDSA " + k.Curve.Params().Name
	case *rsa.PrivateKey:
		return fmt.Sprintf("RSA-%d", k.N.BitLen())
	case *rsa.PublicKey:
		return fmt.Sprintf("RSA-%d", k.N.BitLen())
	case ed25519.PrivateKey, ed25519.PublicKey:
		return "Ed25519"
	default:
		return fmt.Sprintf("%T", k)
	}
}

// PendingSigner is a signer whose key is being decrypted in the background:
// decrypting a cosign key costs a few hundred milliseconds of scrypt, which
// a command can spend on its network work instead of before it. Its
// methods wait for the key. A command that must not act before the key is
// known to be usable (sync downloads nothing with a wrong password) waits
// for it with Wait first: mirror.Sync does so before its first download.
type PendingSigner struct {
	done chan struct{}
	sv   signature.SignerVerifier
	err  error
}

var _ signature.Signer = (*PendingSigner)(nil)

// StartSigner reads the private key file path now (so a missing or
// unreadable file fails at once) and decrypts it in the background, like
// LoadSigner.
func StartSigner(path string, password []byte) (*PendingSigner, error) {
	data, err := readKeyFile(path)
	if err != nil {
		return nil, err
	}
	p := &PendingSigner{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.sv, p.err = ParseSigner(path, data, password)
	}()
	return p, nil
}

// Wait returns the decrypted signer, or why the key could not be used (an
// error wrapping ErrPassword for a wrong password), once decryption ends or
// ctx is done.
func (p *PendingSigner) Wait(ctx context.Context) (signature.SignerVerifier, error) {
	select {
	case <-p.done:
		return p.sv, p.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// Failed returns why the key could not be used, once its decryption has
// ended with an error; nil while it runs or when it succeeded. It never
// waits.
func (p *PendingSigner) Failed() error {
	select {
	case <-p.done:
		return p.err
	default:
		return nil
	}
}

// PublicKey returns the key's public half, after waiting for it.
func (p *PendingSigner) PublicKey(opts ...signature.PublicKeyOption) (crypto.PublicKey, error) {
	sv, err := p.Wait(context.Background())
	if err != nil {
		return nil, err
	}
	return sv.PublicKey(opts...)
}

// SignMessage signs message, after waiting for the key.
func (p *PendingSigner) SignMessage(message io.Reader, opts ...signature.SignOption) ([]byte, error) {
	sv, err := p.Wait(context.Background())
	if err != nil {
		return nil, err
	}
	return sv.SignMessage(message, opts...)
}
