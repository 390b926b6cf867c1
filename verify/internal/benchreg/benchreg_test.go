package benchreg

import (
	"crypto/ed25519"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/verify"
)

var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// TestLayoutWriterMatchesDirstore stores the same entries through the
// directory store and through the bulk loader and wants the same files,
// byte for byte, under extensions/.
func TestLayoutWriterMatchesDirstore(t *testing.T) {
	for _, signed := range []bool{false, true} {
		t.Run(fmt.Sprintf("signed=%v", signed), func(t *testing.T) {
			// Two versions of the first extension: a repository's
			// index.json with two tags, written by each.
			m := &maker{o: Options{Size: 512, Versions: 2, Now: now}}
			if signed {
				m.upPriv = ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
			}
			viaStore := filepath.Join(t.TempDir(), "store")
			st, err := dirstore.Open(viaStore, dirstore.Options{Create: true})
			if err != nil {
				t.Fatal(err)
			}
			want := storeEntries(t, m, st)
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}

			bulk := filepath.Join(t.TempDir(), "bulk")
			st, err = dirstore.Open(bulk, dirstore.Options{Create: true})
			if err != nil {
				t.Fatal(err)
			}
			st.Close()
			lw, err := openLayoutWriter(bulk)
			if err != nil {
				t.Fatal(err)
			}
			got := storeEntries(t, m, lw)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("entries (-dirstore +bulk):\n%s", diff)
			}
			if diff := cmp.Diff(files(t, viaStore), files(t, bulk)); diff != "" {
				t.Errorf("extensions/ (-dirstore +bulk):\n%s", diff)
			}
		})
	}
}

func storeEntries(t *testing.T, m *maker, st store.Store) []index.Entry {
	t.Helper()
	var out []index.Entry
	for i := range 3 {
		e, err := m.entry(t.Context(), st, i)
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		out = append(out, e)
	}
	return out
}

// files returns the content of every file under dir/extensions by path.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	root := filepath.Join(dir, extensionsDir)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("no files under %s", root)
	}
	return out
}

// TestMake makes small registries and verifies every byte of them with
// the public key Make wrote; the private key it wrote is the one that
// signed them (sync signs with it).
func TestMake(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   Options
		blobs  int
		signed bool
	}{
		{"unsigned", Options{Entries: 5, Size: 512, Workers: 3}, 25, false},
		{"signed", Options{Entries: 3, Size: 4096, Signed: true}, 18, true},
		{"through a temp file", Options{Entries: 2, Size: maxInMemory + 1}, 10, false},
		// Three repositories of 3, 3 and 1 entries: each has the config
		// and openvsx.json once, and a manifest, vsix and package.json an
		// entry.
		{"versions", Options{Entries: 7, Size: 512, Versions: 3}, 2*3 + 3*7, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			reg := filepath.Join(dir, "reg")
			res, err := Make(t.Context(), reg, filepath.Join(dir, "bench"), tc.opts)
			if err != nil {
				t.Fatalf("Make: %v", err)
			}
			if want := int64(tc.opts.Entries) * tc.opts.Size; res.Bytes < want {
				t.Errorf("Make: %d vsix bytes; want at least %d", res.Bytes, want)
			}
			key, err := trust.LoadVerifier(res.PubKey)
			if err != nil {
				t.Fatal(err)
			}
			signer, err := trust.LoadSigner(res.Key, nil)
			if err != nil {
				t.Fatalf("LoadSigner(%s): %v", res.Key, err)
			}
			pub, _ := key.PublicKey()
			spub, _ := signer.PublicKey()
			if !cmp.Equal(pub, spub) {
				t.Errorf("%s and %s are not one key pair", res.Key, res.PubKey)
			}
			st := storetest.OpenDir(t, reg, dirstore.Options{ReadOnly: true})
			defer st.Close()
			rep, err := verify.Registry(t.Context(), verify.RegistryOptions{Store: st, Anchor: trust.Anchor{Key: key}})
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			if !rep.OK() || len(rep.Problems) > 0 {
				t.Fatalf("verify: %+v", rep.Problems)
			}
			if rep.Summary.Entries != tc.opts.Entries || rep.Summary.Blobs != tc.blobs {
				t.Errorf("verify: %d entries, %d blobs; want %d, %d", rep.Summary.Entries, rep.Summary.Blobs, tc.opts.Entries, tc.blobs)
			}
		})
	}
}

// TestAdd adds entries of new extensions to a made registry: the next
// serial, chained to the first, holds them all and verifies.
func TestAdd(t *testing.T) {
	dir := t.TempDir()
	reg, prefix := filepath.Join(dir, "reg"), filepath.Join(dir, "bench")
	res, err := Make(t.Context(), reg, prefix, Options{Entries: 6, Size: 512, Versions: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := Add(t.Context(), reg, prefix, 6, Options{Entries: 2, Size: 1024}); err != nil {
		t.Fatalf("Add: %v", err)
	}
	key, err := trust.LoadVerifier(res.PubKey)
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.OpenDir(t, reg, dirstore.Options{ReadOnly: true})
	defer st.Close()
	rep, err := verify.Registry(t.Context(), verify.RegistryOptions{Store: st, Anchor: trust.Anchor{Key: key}})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Catalog.Serial != 2 || rep.Catalog.Entries != 8 {
		t.Errorf("after Add: ok %v, serial %d, %d entries; want ok, 2, 8 (%v)", rep.OK(), rep.Catalog.Serial, rep.Catalog.Entries, rep.Problems)
	}
}
