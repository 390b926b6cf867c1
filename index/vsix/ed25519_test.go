package vsix_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"testing"

	"github.com/airvsx/airvsx/index/vsix"
)

// TestUpstreamVerifierAgrees: the streaming Ed25519 verification agrees with
// crypto/ed25519 on valid signatures, damaged messages, signatures and
// keys, and a non-canonical S.
func TestUpstreamVerifierAgrees(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 1000, 3 << 20} {
		msg := make([]byte, n)
		rand.Read(msg)
		sig := ed25519.Sign(priv, msg)
		cases := map[string]struct {
			pub ed25519.PublicKey
			msg []byte
			sig []byte
		}{"valid": {pub, msg, sig}}
		if n > 0 {
			bad := append([]byte{}, msg...)
			bad[n/2] ^= 1
			cases["message"] = struct {
				pub ed25519.PublicKey
				msg []byte
				sig []byte
			}{pub, bad, sig}
		}
		badSig := append([]byte{}, sig...)
		badSig[5] ^= 1
		highS := append([]byte{}, sig...)
		highS[63] |= 0xe0
		otherPub, _, _ := ed25519.GenerateKey(rand.Reader)
		for name, c := range map[string][]byte{"sig": badSig, "high S": highS, "short": sig[:10]} {
			cases[name] = struct {
				pub ed25519.PublicKey
				msg []byte
				sig []byte
			}{pub, msg, c}
		}
		cases["key"] = struct {
			pub ed25519.PublicKey
			msg []byte
			sig []byte
		}{otherPub, msg, sig}
		for name, c := range cases {
			v := vsix.NewUpstreamVerifier(c.pub, c.sig)
			for off := 0; off < len(c.msg); off += 4096 {
				v.Write(c.msg[off:min(off+4096, len(c.msg))])
			}
			want := len(c.sig) == ed25519.SignatureSize && ed25519.Verify(c.pub, c.msg, c.sig)
			if got := v.Verify(); got != want {
				t.Errorf("n=%d %s: verify = %v; crypto/ed25519 says %v", n, name, got, want)
			}
			if name == "valid" && !want {
				t.Fatalf("n=%d: a valid signature does not verify", n)
			}
		}
	}
}
