package gitstore

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/hiddeco/sshsig"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/sigstore/sigstore/pkg/signature/options"
	"golang.org/x/crypto/ssh"
)

// SignatureNamespace is the SSH signature namespace of commits, as git
// uses it.
const SignatureNamespace = "git"

// Errors of commit signatures.
var (
	// ErrUnsigned is wrapped when a commit carries no signature.
	ErrUnsigned = errors.New("commit is not signed")
	// ErrSignature is wrapped when a commit's signature is not a valid
	// SSH signature by one of the trusted keys.
	ErrSignature = errors.New("commit signature does not verify")
)

// cryptoSigner is a sigstore signer as a crypto.Signer, for
// ssh.NewSignerFromSigner: it signs a digest it is given.
type cryptoSigner struct {
	s   signature.Signer
	pub crypto.PublicKey
}

// Public returns the signer's public key.
func (c cryptoSigner) Public() crypto.PublicKey { return c.pub }

// Sign signs a digest already computed with the hash opts names.
func (c cryptoSigner) Sign(_ io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	return c.s.SignMessage(nil, options.WithDigest(digest), options.WithCryptoSignerOpts(opts))
}

// sshSigner returns s as an SSH signer; its key must be ECDSA.
func sshSigner(s signature.Signer) (ssh.Signer, error) {
	pub, err := s.PublicKey()
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	if _, ok := pub.(*ecdsa.PublicKey); !ok {
		return nil, fmt.Errorf("signing key: %T; commits are signed with an ECDSA key", pub)
	}
	return ssh.NewSignerFromSigner(cryptoSigner{s: s, pub: pub})
}

// signCommit sets c's signature: an armored SSH signature (namespace
// "git", SHA-512) over the commit encoded without it, as git makes with
// gpg.format=ssh.
func signCommit(c *object.Commit, s signature.Signer) error {
	signer, err := sshSigner(s)
	if err != nil {
		return err
	}
	msg, err := unsignedBytes(c)
	if err != nil {
		return err
	}
	sig, err := sshsig.Sign(bytes.NewReader(msg), signer, sshsig.HashSHA512, SignatureNamespace)
	if err != nil {
		return fmt.Errorf("sign commit: %w", err)
	}
	c.PGPSignature = string(sshsig.Armor(sig))
	return nil
}

// unsignedBytes is the commit as its signature covers it.
func unsignedBytes(c *object.Commit) ([]byte, error) {
	mo := &plumbing.MemoryObject{}
	if err := c.EncodeWithoutSignature(mo); err != nil {
		return nil, err
	}
	r, err := mo.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// VerifyCommit checks that c carries an SSH signature (namespace "git")
// by one of keys, as git verify-commit does with gpg.format=ssh. Errors
// wrap ErrUnsigned or ErrSignature and name the commit and, when it has
// one, the key that signed it.
func VerifyCommit(c *object.Commit, keys []crypto.PublicKey) error {
	if c.PGPSignature == "" {
		return fmt.Errorf("commit %s: %w", c.Hash, ErrUnsigned)
	}
	if !strings.HasPrefix(c.PGPSignature, "-----BEGIN SSH SIGNATURE-----") {
		return fmt.Errorf("commit %s: not an SSH signature (an OpenPGP or X.509 one?): %w", c.Hash, ErrSignature)
	}
	sig, err := sshsig.Unarmor([]byte(c.PGPSignature))
	if err != nil {
		return fmt.Errorf("commit %s: %v: %w", c.Hash, err, ErrSignature)
	}
	msg, err := unsignedBytes(c)
	if err != nil {
		return fmt.Errorf("commit %s: %w", c.Hash, err)
	}
	for _, k := range keys {
		pub, err := ssh.NewPublicKey(k)
		if err != nil {
			continue
		}
		if !bytes.Equal(pub.Marshal(), sig.PublicKey.Marshal()) {
			continue
		}
		if err := sshsig.Verify(bytes.NewReader(msg), sig, pub, sig.HashAlgorithm, SignatureNamespace); err != nil {
			return fmt.Errorf("commit %s: %v: %w", c.Hash, err, ErrSignature)
		}
		return nil
	}
	return fmt.Errorf("commit %s: signed by %s, not by a trusted key (%s): %w", c.Hash,
		ssh.FingerprintSHA256(sig.PublicKey), fingerprints(keys), ErrSignature)
}

func fingerprints(keys []crypto.PublicKey) string {
	var fps []string
	for _, k := range keys {
		if pub, err := ssh.NewPublicKey(k); err == nil {
			fps = append(fps, ssh.FingerprintSHA256(pub))
		}
	}
	if len(fps) == 0 {
		return "none"
	}
	return strings.Join(fps, ", ")
}

// AllowedSigner returns the line of an SSH allowed-signers file
// (ssh-keygen(1), ALLOWED SIGNERS) that lets stock git verify commits
// signed with pub: `principal namespaces="git" <type> <base64>`. With
// git config gpg.format=ssh and gpg.ssh.allowedSignersFile naming that
// file, git verify-commit accepts the store's commits.
func AllowedSigner(principal string, pub crypto.PublicKey) (string, error) {
	if principal == "" || strings.ContainsAny(principal, " \t\n\"") {
		return "", fmt.Errorf("allowed signer: principal %q: want one word", principal)
	}
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		return "", fmt.Errorf("allowed signer: %w", err)
	}
	return principal + ` namespaces="` + SignatureNamespace + `" ` + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(k))), nil
}
