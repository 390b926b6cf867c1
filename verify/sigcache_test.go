package verify_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/filetest"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/index/vsix"
	"github.com/airvsx/airvsx/verify"
	"github.com/airvsx/airvsx/verify/verifytest"
)

const nightTheme = "airvsx-demo.night-theme@2.1.0"

// sigCachePath is where the package comment puts the signature cache.
func sigCachePath(state string) string {
	return filepath.Join(state, "sigcache", "upstream-ed25519.v1")
}

// writeSigCache writes a well-formed cache file (header, lines, checksum)
// holding lines: what someone who can write the state directory could
// put there.
func writeSigCache(t *testing.T, state string, lines []string) {
	t.Helper()
	body := "airvsx upstream-ed25519 verdicts v1\n"
	for _, l := range lines {
		body += l + "\n"
	}
	if err := os.MkdirAll(filepath.Dir(sigCachePath(state)), 0o700); err != nil {
		t.Fatal(err)
	}
	filetest.WriteFile(t, sigCachePath(state), []byte(body+"sha256 "+index.SHA256Hex([]byte(body))+"\n"))
}

// sigLine is a cache line claiming that sig by pub is valid over the vsix
// with sha256 vsixHex.
func sigLine(vsixHex string, sig, pub []byte) string {
	return vsixHex + " " + index.SHA256Hex(sig) + " " + hex.EncodeToString(pub)
}

// upstreamOf returns an entry's vsix sha256 (hex), signature bytes and
// the upstream public key the catalog pins for it.
func upstreamOf(t *testing.T, dir, entry string) (string, []byte, ed25519.PublicKey) {
	t.Helper()
	cat, _ := demoreg.ReadCatalog(t, dir)
	e := find(t, cat, entry)
	sig, err := vsix.ReadSigzipSignature(readBlob(t, dir, entry, artifact.RoleUpstreamSignature))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range cat.UpstreamKeys {
		if k.ID == e.Upstream.KeyID {
			pub, err := vsix.ParseUpstreamKey([]byte(k.PEM))
			if err != nil {
				t.Fatal(err)
			}
			return e.VsixSHA256, sig, pub
		}
	}
	t.Fatalf("%s: key %s not pinned", entry, e.Upstream.KeyID)
	return "", nil, nil
}

// cachedLines returns the verdict lines of the cache file in state.
func cachedLines(t *testing.T, state string) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(filetest.ReadFile(t, sigCachePath(state))), "\n"), "\n")
	if len(lines) < 2 {
		t.Fatalf("cache file: %q", lines)
	}
	return lines[1 : len(lines)-1]
}

func withStateDir(state string, more ...func(*verify.RegistryOptions)) func(*verify.RegistryOptions) {
	return func(o *verify.RegistryOptions) {
		o.State = trust.OpenStateDir(state)
		for _, f := range more {
			f(o)
		}
	}
}

func sigCounts(rep *verify.Report) (verified, cached int) {
	return rep.Summary.SignaturesVerified, rep.Summary.SignaturesCached
}

// signedRun verifies a fresh copy of the fixture with state, checks it
// passed and returns how many signatures it checked.
func signedRun(t *testing.T, dir, state string) int {
	t.Helper()
	rep := check(t, dir, withStateDir(state))
	if !rep.OK() {
		t.Fatalf("first run:\n%s", verifytest.ProblemList(rep))
	}
	n, cached := sigCounts(rep)
	if n == 0 || cached != 0 {
		t.Fatalf("first run: %d signatures verified, %d cached; want some verified, none cached", n, cached)
	}
	return n
}

// TestSigCacheRepeat: a repeat run takes every verdict from the cache
// (and still hashes every byte); NoCache checks them all again and leaves
// the cache alone; without a state directory there is no cache.
func TestSigCacheRepeat(t *testing.T) {
	dir, state := fresh(t), t.TempDir()
	n := signedRun(t, dir, state)
	cache := filetest.ReadFile(t, sigCachePath(state))

	rep := check(t, dir, withStateDir(state))
	if v, c := sigCounts(rep); !rep.OK() || v != 0 || c != n {
		t.Fatalf("repeat run: ok=%v, %d verified, %d cached; want ok, 0, %d\n%s", rep.OK(), v, c, n, verifytest.ProblemList(rep))
	}
	first := check(t, dir, withStateDir(state, func(o *verify.RegistryOptions) { o.NoCache = true }))
	if rep.Summary.Bytes != first.Summary.Bytes || rep.Summary.Blobs != first.Summary.Blobs {
		t.Errorf("repeat run hashed %d bytes of %d blobs; a full run %d of %d", rep.Summary.Bytes, rep.Summary.Blobs, first.Summary.Bytes, first.Summary.Blobs)
	}
	if v, c := sigCounts(first); !first.OK() || v != n || c != 0 {
		t.Fatalf("NoCache: ok=%v, %d verified, %d cached; want ok, %d, 0", first.OK(), v, c, n)
	}
	if !bytes.Equal(filetest.ReadFile(t, sigCachePath(state)), cache) {
		t.Error("NoCache changed the cache file")
	}

	// NoCache ignores even a cache that would change nothing but counts.
	rep = check(t, dir)
	if v, c := sigCounts(rep); v != n || c != 0 {
		t.Errorf("no state: %d verified, %d cached; want %d, 0", v, c, n)
	}
}

// TestSigCacheDamaged: a cache file that is garbage, torn, not a regular
// file or of another version is ignored whole: every signature is
// checked, the run succeeds, and the cache is written anew.
func TestSigCacheDamaged(t *testing.T) {
	dir, state := fresh(t), t.TempDir()
	n := signedRun(t, dir, state)
	good := filetest.ReadFile(t, sigCachePath(state))
	lines := strings.Split(strings.TrimSuffix(string(good), "\n"), "\n")
	for name, damage := range map[string]func(){
		"garbage": func() { filetest.WriteFile(t, sigCachePath(state), []byte("\x00garbage\n{")) },
		"empty":   func() { filetest.WriteFile(t, sigCachePath(state), nil) },
		"torn":    func() { filetest.WriteFile(t, sigCachePath(state), good[:len(good)/2]) },
		"no checksum": func() {
			filetest.WriteFile(t, sigCachePath(state), []byte(strings.Join(lines[:len(lines)-1], "\n")+"\n"))
		},
		"bad checksum": func() {
			filetest.WriteFile(t, sigCachePath(state), []byte(strings.Join(lines[:len(lines)-1], "\n")+"\nsha256 "+strings.Repeat("0", 64)+"\n"))
		},
		"line edited": func() {
			b := bytes.Clone(good)
			b[len(lines[0])+1] ^= 1 // first hex digit of the first verdict
			filetest.WriteFile(t, sigCachePath(state), b)
		},
		"bad line": func() { writeSigCache(t, state, append(lines[1:len(lines)-1], "zz")) },
		"other version": func() {
			filetest.WriteFile(t, sigCachePath(state), bytes.Replace(good, []byte(" v1\n"), []byte(" v2\n"), 1))
		},
		"directory": func() {
			filetest.Remove(t, sigCachePath(state))
			if err := os.Mkdir(sigCachePath(state), 0o700); err != nil {
				t.Fatal(err)
			}
		},
		"symlink": func() {
			other := filepath.Join(t.TempDir(), "elsewhere")
			filetest.WriteFile(t, other, good)
			filetest.Remove(t, sigCachePath(state))
			if err := os.Symlink(other, sigCachePath(state)); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			os.RemoveAll(sigCachePath(state))
			filetest.WriteFile(t, sigCachePath(state), good)
			damage()
			rep := check(t, dir, withStateDir(state))
			if v, c := sigCounts(rep); !rep.OK() || v != n || c != 0 {
				t.Fatalf("ok=%v, %d verified, %d cached; want ok, %d, 0\n%s", rep.OK(), v, c, n, verifytest.ProblemList(rep))
			}
			if name == "directory" {
				return // not replaced: the write fails, which only costs the next run time
			}
			rep = check(t, dir, withStateDir(state))
			if v, c := sigCounts(rep); !rep.OK() || v != 0 || c != n {
				t.Errorf("after rewrite: ok=%v, %d verified, %d cached; want ok, 0, %d", rep.OK(), v, c, n)
			}
		})
	}
}

// TestSigCacheNotTrusted: cache lines that claim "valid" for a vsix, a
// signature or a key other than the registry's never make a bad
// signature pass; a hit needs the sha256 this run computes over the file,
// the signature bytes and the key itself.
func TestSigCacheNotTrusted(t *testing.T) {
	orig := fresh(t)
	helloVsix, helloSig, pub := upstreamOf(t, orig, hello)
	nightVsix, nightSig, _ := upstreamOf(t, orig, nightTheme)
	otherPub, otherPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("another entry's signature", func(t *testing.T) {
		// The catalog now gives hello night-theme's signature: bad.
		dir, state := fresh(t), t.TempDir()
		signedRun(t, dir, state) // the cache now holds hello's true verdict
		swapLayer(t, dir, hello, nightTheme, artifact.RoleUpstreamSignature)
		lines := append(cachedLines(t, state),
			sigLine(helloVsix, helloSig, pub),                         // the right vsix with the signature it had
			sigLine(nightVsix, nightSig, pub),                         // the signature, for the vsix it signs
			sigLine(strings.Repeat("ab", 32), nightSig, pub),          // the signature, for another file
			sigLine(helloVsix, nightSig, otherPub),                    // the vsix and signature, another key
			sigLine(helloVsix, ed25519.Sign(otherPriv, nil), pub),     // the vsix, another signature
			sigLine(helloVsix, append(bytes.Clone(nightSig), 0), pub), // the signature with a byte more
		)
		writeSigCache(t, state, lines)
		rep := check(t, dir, withStateDir(state))
		if rep.OK() || !hasProblem(rep, want{verify.RuleSignatureInvalid, relBlob(t, dir, hello, artifact.RoleVsix), hello}) {
			t.Fatalf("bad signature with a tampered cache: ok=%v\n%s", rep.OK(), verifytest.ProblemList(rep))
		}
		// And nothing a run found invalid is remembered.
		rep = check(t, dir, withStateDir(state))
		if rep.OK() || !hasProblem(rep, want{verify.RuleSignatureInvalid, relBlob(t, dir, hello, artifact.RoleVsix), hello}) {
			t.Fatalf("second run: ok=%v\n%s", rep.OK(), verifytest.ProblemList(rep))
		}
	})

	t.Run("another file than the cached one", func(t *testing.T) {
		// The catalog still names hello's vsix, whose verdict is cached,
		// but the file in the registry is another: the digest check
		// fails it, and no verdict is taken for it from the cache.
		dir, state := fresh(t), t.TempDir()
		n := signedRun(t, dir, state)
		filetest.FlipByte(t, blobFile(t, dir, hello, artifact.RoleVsix))
		rep := check(t, dir, withStateDir(state))
		if v, c := sigCounts(rep); rep.OK() || v != 0 || c != n-1 {
			t.Fatalf("ok=%v, %d verified, %d cached; want a failure, 0 verified, %d cached\n%s", rep.OK(), v, c, n-1, verifytest.ProblemList(rep))
		}
		if !hasProblem(rep, want{verify.RuleBlobDigest, relBlob(t, dir, hello, artifact.RoleVsix), hello}) {
			t.Errorf("no blob-digest problem for hello:\n%s", verifytest.ProblemList(rep))
		}
	})

	t.Run("the key's name given to another key", func(t *testing.T) {
		// The catalog pins another key under the same name: every
		// signature is bad, whatever the cache says about the name.
		dir, state := fresh(t), t.TempDir()
		n := signedRun(t, dir, state)
		der, err := x509.MarshalPKIXPublicKey(otherPub)
		if err != nil {
			t.Fatal(err)
		}
		resign(t, dir, func(st *dirstore.Store, cat *index.Catalog) {
			for i := range cat.UpstreamKeys {
				cat.UpstreamKeys[i].PEM = string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
			}
		})
		rep := check(t, dir, withStateDir(state))
		bad := 0
		for _, p := range rep.Errors() {
			if p.Rule == verify.RuleSignatureInvalid {
				bad++
			}
		}
		if v, c := sigCounts(rep); bad != n || v != n || c != 0 {
			t.Fatalf("%d signature-invalid, %d verified, %d cached; want %d, %d, 0\n%s", bad, v, c, n, n, verifytest.ProblemList(rep))
		}
	})
}
