package index

import (
	"crypto/sha256"
	"strings"
	"testing"
)

func TestDigestHelpers(t *testing.T) {
	const emptyHex = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	h := sha256.New()
	h.Write([]byte("abc"))
	tests := []struct {
		name, got, want string
	}{
		{"DigestBytes empty", DigestBytes(nil), "sha256:" + emptyHex},
		{"DigestBytes abc", DigestBytes([]byte("abc")), "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"DigestOfSum", DigestOfSum(h.Sum(nil)), DigestBytes([]byte("abc"))},
		{"SHA256Digest", SHA256Digest(emptyHex), DigestBytes(nil)},
		{"SHA256Digest verbatim", SHA256Digest(strings.Repeat("a", 64)), "sha256:" + strings.Repeat("a", 64)},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %q; want %q", tt.name, tt.got, tt.want)
		}
	}
}
