package verify

import (
	"encoding/binary"
	"testing"
)

// TestSigCacheBounded: a run records at most maxSigCacheEntries verdicts
// however many it finds, its own first, and the file holds no more.
func TestSigCacheBounded(t *testing.T) {
	state := t.TempDir()
	key := func(i int) sigKey {
		var k sigKey
		binary.BigEndian.PutUint64(k.VsixSHA256[:], uint64(i)+1)
		return k
	}
	c, err := loadSigCache(state)
	if err != nil {
		t.Fatal(err)
	}
	for i := range maxSigCacheEntries + 10 {
		c.add(key(i))
	}
	if len(c.now) != maxSigCacheEntries || len(c.used) != maxSigCacheEntries {
		t.Fatalf("recorded %d (%d); want %d", len(c.now), len(c.used), maxSigCacheEntries)
	}
	if err := c.save(); err != nil {
		t.Fatal(err)
	}
	// The next run finds other verdicts: they come first, the oldest go.
	c, err = loadSigCache(state)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.order) != maxSigCacheEntries || !c.valid(key(5)) || c.valid(key(maxSigCacheEntries)) {
		t.Fatalf("reloaded %d verdicts; want %d, the first ones", len(c.order), maxSigCacheEntries)
	}
	c.add(key(-2))
	if err := c.save(); err != nil {
		t.Fatal(err)
	}
	keys, err := readSigCache(c.path)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != maxSigCacheEntries || keys[0] != key(5) || keys[1] != key(-2) || keys[len(keys)-1] != key(maxSigCacheEntries-2) {
		t.Errorf("saved %d verdicts starting %v, %v; want %d, this run's first", len(keys), keys[0], keys[1], maxSigCacheEntries)
	}
}
