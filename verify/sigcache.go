package verify

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/internal/atomicfile"
	"github.com/airvsx/airvsx/internal/safefile"
)

// The upstream-signature cache: verdicts of earlier runs' Ed25519 checks,
// in the state directory, so that a repeat run only hashes (see the
// package comment, "Signature cache").
const (
	sigCacheDir    = "sigcache"
	sigCacheFile   = "upstream-ed25519.v1"
	sigCacheHeader = "airvsx upstream-ed25519 verdicts v1"
	// maxSigCacheEntries bounds the file (about 200 bytes an entry, so
	// under 13 MB) and what a run holds of it in memory.
	maxSigCacheEntries = 1 << 16
)

// sigKey is what makes a cached verdict true: Ed25519(key, sig, message)
// is valid, where message is the vsix whose sha256 is VsixSHA256. A hit is
// only ever looked up with the sha256 this run computed over the file, the
// signature bytes this run read, and the public key itself (not its name
// in the catalog, which another catalog may give to another key).
type sigKey struct {
	VsixSHA256 [sha256.Size]byte // of the whole vsix, as hashed this run
	SigSHA256  [sha256.Size]byte // of the 64 signature bytes
	PublicKey  [32]byte          // the Ed25519 public key
}

// newSigKey builds the key of a vsix whose sha256 is "sha256:<hex>"; ok
// is false for anything else.
func newSigKey(vsixDigest string, sig, pub []byte) (k sigKey, ok bool) {
	hexSum, found := strings.CutPrefix(vsixDigest, "sha256:")
	if !found || len(pub) != len(k.PublicKey) {
		return k, false
	}
	if n, err := hex.Decode(k.VsixSHA256[:], []byte(hexSum)); err != nil || n != sha256.Size || len(hexSum) != 2*sha256.Size {
		return k, false
	}
	k.SigSHA256 = sha256.Sum256(sig)
	copy(k.PublicKey[:], pub)
	return k, true
}

func (k sigKey) String() string {
	return hex.EncodeToString(k.VsixSHA256[:]) + " " + hex.EncodeToString(k.SigSHA256[:]) + " " + hex.EncodeToString(k.PublicKey[:])
}

// sigCache is the cache as one run uses it: what the file held when the
// run started, and the valid verdicts the run used or found. Safe for
// concurrent use; a nil *sigCache is an empty cache that saves nothing.
// The zero sigKey never hits.
type sigCache struct {
	path string

	mu    sync.Mutex
	old   map[sigKey]bool
	order []sigKey        // old's keys in file order
	used  map[sigKey]bool // hits and new verdicts of this run
	fresh int             // new verdicts among used
	now   []sigKey        // used's keys in the order found
}

// loadSigCache reads the cache under the state directory root. A missing,
// unreadable, torn or otherwise damaged file is an empty cache: it is a
// hint, never trusted in part. The error says why the file was ignored,
// for the log; it never stops a run.
func loadSigCache(root string) (*sigCache, error) {
	c := &sigCache{path: filepath.Join(root, sigCacheDir, sigCacheFile), old: map[sigKey]bool{}, used: map[sigKey]bool{}}
	keys, err := readSigCache(c.path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return c, nil
		}
		return c, err
	}
	for _, k := range keys {
		if !c.old[k] {
			c.old[k] = true
			c.order = append(c.order, k)
		}
	}
	return c, nil
}

// maxSigCacheBytes is the largest file loadSigCache reads.
const maxSigCacheBytes = int64(len(sigCacheHeader)+1) + maxSigCacheEntries*(3*64+3) + int64(len("sha256 ")+64+1)

// readSigCache parses the file at path: the header line, one line per
// key, and a last line "sha256 <hex>" of every byte before it. Any
// deviation rejects the whole file.
func readSigCache(path string) ([]sigKey, error) {
	// Inside its directory, so a final symlink is not followed.
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	defer root.Close()
	data, err := safefile.ReadIn(root, filepath.Base(path), maxSigCacheBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	damaged := func(why string) error { return fmt.Errorf("%s: damaged (%s)", path, why) }
	body, sumLine, ok := cutLastLine(data)
	if !ok {
		return nil, damaged("no checksum line")
	}
	if string(sumLine) != "sha256 "+index.SHA256Hex(body) {
		return nil, damaged("checksum mismatch")
	}
	lines := strings.Split(strings.TrimSuffix(string(body), "\n"), "\n")
	if lines[0] != sigCacheHeader {
		return nil, damaged("not a verdict file of this version")
	}
	if len(lines)-1 > maxSigCacheEntries {
		return nil, damaged("too many entries")
	}
	keys := make([]sigKey, 0, len(lines)-1)
	for i, line := range lines[1:] {
		k, err := parseSigKey(line)
		if err != nil {
			return nil, damaged(fmt.Sprintf("line %d: %v", i+2, err))
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// cutLastLine splits data ending in "\n" into everything up to and
// including the second-to-last "\n", and the last line without its "\n".
func cutLastLine(data []byte) (body, last []byte, ok bool) {
	if len(data) == 0 || data[len(data)-1] != '\n' {
		return nil, nil, false
	}
	i := bytes.LastIndexByte(data[:len(data)-1], '\n')
	if i < 0 {
		return nil, nil, false
	}
	return data[:i+1], data[i+1 : len(data)-1], true
}

func parseSigKey(line string) (sigKey, error) {
	var k sigKey
	f := strings.Split(line, " ")
	if len(f) != 3 {
		return k, errors.New("want three fields")
	}
	for i, dst := range [][]byte{k.VsixSHA256[:], k.SigSHA256[:], k.PublicKey[:]} {
		if len(f[i]) != 2*len(dst) || strings.ToLower(f[i]) != f[i] {
			return k, fmt.Errorf("field %d: want %d lower-case hex digits", i+1, 2*len(dst))
		}
		if _, err := hex.Decode(dst, []byte(f[i])); err != nil {
			return k, fmt.Errorf("field %d: %v", i+1, err)
		}
	}
	return k, nil
}

// valid reports whether an earlier run found the signature valid for k,
// and remembers the hit for the next file.
func (c *sigCache) valid(k sigKey) bool {
	if c == nil || k == (sigKey{}) {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.old[k] {
		return false
	}
	c.use(k)
	return true
}

// use records k as a verdict of this run, up to maxSigCacheEntries (what
// save writes), so memory does not grow with the registry; it reports
// whether k is recorded.
func (c *sigCache) use(k sigKey) bool {
	if c.used[k] {
		return true
	}
	if len(c.now) >= maxSigCacheEntries {
		return false
	}
	c.used[k] = true
	c.now = append(c.now, k)
	return true
}

// contains reports whether the cache holds k, without recording a hit.
func (c *sigCache) contains(k sigKey) bool {
	if c == nil || k == (sigKey{}) {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.old[k]
}

// add records that the signature was found valid for k this run.
func (c *sigCache) add(k sigKey) {
	if c == nil || k == (sigKey{}) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.used[k] && c.use(k) && !c.old[k] {
		c.fresh++
	}
}

// save writes the cache when this run found a verdict it did not hold:
// this run's verdicts first, then the older ones, up to
// maxSigCacheEntries. Concurrent runs each replace the file atomically;
// the last one wins.
func (c *sigCache) save() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fresh == 0 {
		return nil
	}
	keys := slices.Clone(c.now)
	for _, k := range c.order {
		if !c.used[k] {
			keys = append(keys, k)
		}
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(c.path, encodeSigCache(keys[:min(len(keys), maxSigCacheEntries)]), 0o600)
}

// encodeSigCache is the cache file holding keys: the header, a line a
// key, and the "sha256 <hex>" line of every byte before it.
func encodeSigCache(keys []sigKey) []byte {
	var b bytes.Buffer
	b.WriteString(sigCacheHeader + "\n")
	for _, k := range keys {
		b.WriteString(k.String() + "\n")
	}
	b.WriteString("sha256 " + index.SHA256Hex(b.Bytes()) + "\n")
	return b.Bytes()
}
