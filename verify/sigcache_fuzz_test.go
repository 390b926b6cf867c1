package verify

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// encodeSigCache is the file save writes for keys.
func encodeSigCache(keys []sigKey) []byte {
	var b bytes.Buffer
	b.WriteString(sigCacheHeader + "\n")
	for _, k := range keys {
		b.WriteString(k.String() + "\n")
	}
	sum := sha256.Sum256(b.Bytes())
	b.WriteString("sha256 " + hex.EncodeToString(sum[:]) + "\n")
	return b.Bytes()
}

// FuzzReadSigCache: a cache file is accepted only as exactly what save
// would write for the keys read from it (so no file is trusted in part),
// and keys round-trip.
func FuzzReadSigCache(f *testing.F) {
	k, _ := newSigKey("sha256:"+hex.EncodeToString(make([]byte, 32)), []byte("sig"), make([]byte, 32))
	f.Add(encodeSigCache(nil))
	f.Add(encodeSigCache([]sigKey{k, k}))
	f.Add([]byte("garbage"))
	good := encodeSigCache([]sigKey{k})
	f.Add(good[:len(good)-10])
	path := filepath.Join(f.TempDir(), "cache")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		keys, err := readSigCache(path)
		if err != nil {
			return
		}
		if got := encodeSigCache(keys); !bytes.Equal(got, data) {
			t.Fatalf("accepted %q; it encodes as %q", data, got)
		}
	})
}
