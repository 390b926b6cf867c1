package verify

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/airvsx/airvsx/index"
)

// FuzzReadSigCache: a cache file is accepted only as exactly what save
// would write for the keys read from it (so no file is trusted in part),
// and keys round-trip.
func FuzzReadSigCache(f *testing.F) {
	k, _ := newSigKey(index.DigestOfSum(make([]byte, 32)), []byte("sig"), make([]byte, 32))
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
