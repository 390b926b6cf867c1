package transfer_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/mirror"
	"github.com/airvsx/airvsx/policies"
	"github.com/airvsx/airvsx/testkit/citool"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/testkit/openvsxtest"
	"github.com/airvsx/airvsx/transfer"
	"github.com/airvsx/airvsx/verify"
	"github.com/sigstore/sigstore/pkg/signature"
)

// week is a registry's week: synced on day 1 (one extension) and again
// on day 2 (the demo policy: more extensions), kept as it is after each.
type week struct {
	src, day1 string // the registry after day 2 (serial 2), and a copy of it after day 1 (serial 1)
	signer    signature.SignerVerifier
	other     signature.SignerVerifier
	root      []byte
}

func newWeek(t *testing.T) *week {
	t.Helper()
	dir := t.TempDir()
	w := &week{src: filepath.Join(dir, "src"), day1: filepath.Join(dir, "day1")}
	w.signer, _ = demoreg.Signer(t, dir, "k")
	w.other, _ = demoreg.Signer(t, dir, "other")
	srv := openvsxtest.New(t, openvsxtest.Options{})
	day1 := demoreg.ParsePolicy(t, "version: 1\neditor: 1.95.0\nplatforms: [universal, linux-x64]\nextensions:\n  - id: airvsx-demo.night-theme\n")
	for i, pol := range []*policies.Policy{day1, demoreg.Policy(t)} {
		st := openDir(t, w.src)
		at := demoreg.SyncNow1.Add(time.Duration(i) * time.Hour)
		rep, err := mirror.Sync(t.Context(), mirror.Options{Client: demoreg.Client(t, srv), Policy: pol, Store: st, Signer: w.signer,
			Now: func() time.Time { return at }, TempDir: dir})
		if err != nil || rep.Failed() {
			t.Fatalf("sync %d: %v", i+1, err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			filetest.CopyDir(t, w.src, w.day1)
		}
	}
	w.root = filetest.ReadFile(t, filepath.Join(w.src, "metadata", "1.root.json"))
	return w
}

// options are the options of a copy or apply anchored at the week's key.
func (w *week) options() transfer.Options {
	return transfer.Options{Anchor: trust.Anchor{Key: w.signer}, Now: now, Workers: 2}
}

// bundle bundles the registry (serial 2) since since into a new
// directory, and returns it and the report.
func (w *week) bundle(t *testing.T, since transfer.Since) (string, *transfer.BundleReport) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "bundle")
	rep, err := transfer.Bundle(t.Context(), readOnly(t, w.src), since, out, transfer.BundleOptions{Anchor: trust.Anchor{Key: w.signer}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return out, rep
}

// far is a copy of the registry after day 1: the far side.
func (w *week) far(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "far")
	filetest.CopyDir(t, w.day1, dir)
	return dir
}

// state is what the far side (serial 1) holds, as its state file
// records it.
func (w *week) state(t *testing.T) transfer.Since {
	t.Helper()
	_, digest := demoreg.ReadCatalog(t, w.day1)
	return transfer.Since{Serial: 1, Digest: digest, Trust: &trust.State{Root: 1, Timestamp: 1, Snapshot: 1, Targets: 1}, Registry: index.SHA256Hex(w.root)}
}

// verify verifies st from the week's key, every byte, and fails on any
// error-severity problem; it returns the catalog serial.
func (w *week) verify(t *testing.T, st store.Store) int64 {
	t.Helper()
	rep, err := verify.Registry(t.Context(), verify.RegistryOptions{Store: st, Anchor: trust.Anchor{Key: w.signer}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		if p.Severity == verify.Error {
			t.Errorf("%s %s: %s", p.Rule, p.File, p.Message)
		}
	}
	return rep.Catalog.Serial
}

// TestBundleApply: a bundle from serial 1 holds none of the blobs the far
// side holds, and applied it leaves the far side with every blob and
// metadata file of the source (serial 2), verifying. The serial alone
// (the TUF versions worked out from the history) gives the same bundle as
// the state file.
func TestBundleApply(t *testing.T) {
	w := newWeek(t)
	dir, rep := w.bundle(t, w.state(t))
	if rep.UpToDate || rep.Entries == 0 || rep.Blobs == 0 || rep.Metadata == 0 {
		t.Fatalf("report %+v: want new entries, blobs and metadata", rep)
	}
	farDir := w.far(t)
	held := blobFiles(t, farDir)
	for _, f := range rep.Manifest.Files {
		if rest, ok := strings.CutPrefix(f.Path, "blobs/"); ok {
			i := strings.LastIndexByte(rest, '/')
			p := "extensions/" + rest[:i] + "/blobs/sha256/" + rest[i+1:]
			if _, ok := held[p]; ok {
				t.Errorf("the bundle carries %s, which the far side holds", f.Path)
			}
		}
	}
	// The day-2 entries land in the bin of night-theme's shard, which the
	// far side holds: that shard travels as a delta.
	if !strings.Contains(fileList(rep.Manifest), "deltas/targets/") {
		t.Errorf("no shard delta in the bundle:\n%s", fileList(rep.Manifest))
	}
	byState := fileList(rep.Manifest)
	_, rep2 := w.bundle(t, transfer.Since{Serial: 1})
	if got := fileList(rep2.Manifest); got != byState {
		t.Errorf("bundle from serial 1:\n%s\nfrom the state file:\n%s", got, byState)
	}

	dst := openDir(t, farDir)
	crep, m, err := transfer.Apply(t.Context(), dir, dst, w.options())
	if err != nil {
		t.Fatal(err)
	}
	if crep.Serial != 2 || m.From.Serial != 1 || crep.Blobs != rep.Blobs {
		t.Errorf("applied serial %d from %d, %d blobs; want 2 from 1, %d", crep.Serial, m.From.Serial, crep.Blobs, rep.Blobs)
	}
	if got := w.verify(t, dst); got != 2 {
		t.Errorf("far side at serial %d; want 2", got)
	}
	want, got := blobFiles(t, w.src), blobFiles(t, farDir)
	for p := range want {
		if _, ok := got[p]; !ok && p != dirstore.CleanMark {
			t.Errorf("after the bundle the far side lacks %s", p)
		}
	}
}

// readCounter counts the metadata files read through it, by name.
type readCounter struct {
	store.Store
	mu    sync.Mutex
	reads map[string]int
}

func (r *readCounter) Unwrap() store.Store { return r.Store }

func (r *readCounter) ReadMetadata(ctx context.Context, name string, maxSize int64) ([]byte, error) {
	r.mu.Lock()
	r.reads[name]++
	r.mu.Unlock()
	return r.Store.ReadMetadata(ctx, name, maxSize)
}

// TestApplyReadsBaseOnce: a shard delta's base, the far side's shard of
// the same bin, is read once, for planning, and not again to make the
// new shard from the delta; the far side's metadata the bundle does not
// replace is not read to be compared with itself.
func TestApplyReadsBaseOnce(t *testing.T) {
	w := newWeek(t)
	dir, rep := w.bundle(t, w.state(t))
	if !strings.Contains(fileList(rep.Manifest), "deltas/targets/") {
		t.Fatalf("no shard delta in the bundle:\n%s", fileList(rep.Manifest))
	}
	dst := &readCounter{Store: openDir(t, w.far(t)), reads: map[string]int{}}
	if _, _, err := transfer.Apply(t.Context(), dir, dst, w.options()); err != nil {
		t.Fatal(err)
	}
	shards := 0
	for name, n := range dst.reads {
		if !strings.Contains(name, ".shard-") {
			continue
		}
		shards++
		if n != 1 {
			t.Errorf("the far side's %s was read %d times; want once", name, n)
		}
	}
	if shards == 0 {
		t.Errorf("no shard of the far side was read (reads %v): the test no longer sees the delta's base", dst.reads)
	}
}

// editDelta rewrites the bundle's delta file with edit, and the bundle's
// manifest to match: only the signed catalog is left to catch it.
func editDelta(t *testing.T, dir, delta string, edit func(d map[string]any)) {
	t.Helper()
	p := filepath.Join(dir, delta)
	var d map[string]any
	if err := json.Unmarshal(filetest.ReadFile(t, p), &d); err != nil {
		t.Fatal(err)
	}
	edit(d)
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	filetest.WriteFile(t, p, data)
	mp := filepath.Join(dir, transfer.BundleManifestName)
	m, err := transfer.ParseBundleManifest(filetest.ReadFile(t, mp))
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.Files {
		if m.Files[i].Path == delta {
			sum := sha256.Sum256(data)
			m.Files[i].Size, m.Files[i].SHA256 = int64(len(data)), hex.EncodeToString(sum[:])
		}
	}
	filetest.WriteFile(t, mp, m.Encode())
}

func fileList(m *transfer.BundleManifest) string {
	var b strings.Builder
	for _, f := range m.Files {
		b.WriteString(f.Path + "\n")
	}
	return b.String()
}

// TestBundleSince: states not in the source's history are refused, and
// the source's own state writes nothing.
func TestBundleSince(t *testing.T) {
	w := newWeek(t)
	good := w.state(t)
	_, digest2 := demoreg.ReadCatalog(t, w.src)
	for _, tc := range []struct {
		name  string
		since transfer.Since
		want  string
	}{
		{"fork", transfer.Since{Serial: 1, Digest: "sha256:" + strings.Repeat("a", 64)}, "a fork"},
		{"newer", transfer.Since{Serial: 3}, "newer than"},
		{"another registry", transfer.Since{Serial: 1, Registry: strings.Repeat("b", 64)}, "the state is of registry bbbb"},
		{"fork at the head", transfer.Since{Serial: 2, Digest: good.Digest}, "a fork"},
		{"no catalog", transfer.Since{Serial: 0}, "holds no catalog yet: carry the whole registry"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "b")
			_, err := transfer.Bundle(t.Context(), readOnly(t, w.src), tc.since, out, transfer.BundleOptions{Anchor: trust.Anchor{Key: w.signer}, Now: now})
			if !errors.Is(err, transfer.ErrBundleSince) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v; want ErrBundleSince saying %q", err, tc.want)
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused bundle made %s", out)
			}
		})
	}
	out := filepath.Join(t.TempDir(), "b")
	rep, err := transfer.Bundle(t.Context(), readOnly(t, w.src), transfer.Since{Serial: 2, Digest: digest2}, out, transfer.BundleOptions{Anchor: trust.Anchor{Key: w.signer}, Now: now})
	if err != nil || !rep.UpToDate {
		t.Fatalf("bundle since the source's own serial: %+v, %v; want up to date", rep, err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an up-to-date bundle made %s", out)
	}
}

// TestApplyHostileBundle: a bundle whose bytes were changed after it was
// written, or one signed by another operator, is refused and leaves the
// far side's catalog and metadata as they were.
func TestApplyHostileBundle(t *testing.T) {
	w := newWeek(t)
	dir, rep := w.bundle(t, w.state(t))
	var vsixBlob, shard, delta string
	for _, f := range rep.Manifest.Files {
		switch {
		case strings.HasPrefix(f.Path, "deltas/"):
			delta = f.Path
		case strings.HasPrefix(f.Path, "blobs/") && f.Size > 1000 && vsixBlob == "":
			vsixBlob = f.Path
		case strings.Contains(f.Path, ".shard-"):
			shard = f.Path
		}
	}
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string)
		is     error
		want   string
	}{
		{"a blob's bytes", func(t *testing.T, dir string) { filetest.FlipByte(t, filepath.Join(dir, vsixBlob)) }, transfer.ErrSource, "content has digest"},
		{"a shard's bytes", func(t *testing.T, dir string) { filetest.FlipByte(t, filepath.Join(dir, shard)) }, transfer.ErrIncompleteBundle, "lists"},
		{"a file made a symlink", func(t *testing.T, dir string) {
			p := filepath.Join(dir, vsixBlob)
			filetest.Remove(t, p)
			if err := os.Symlink("/etc/passwd", p); err != nil {
				t.Fatal(err)
			}
		}, transfer.ErrIncompleteBundle, "not a regular file"},
		{"a delta that makes another shard", func(t *testing.T, dir string) {
			// The delta re-written to add nothing, and the manifest
			// re-written to match it: only the signed catalog's pin of the
			// shard it makes is left to catch it.
			editDelta(t, dir, delta, func(d map[string]any) { d["add"] = []any{} })
		}, transfer.ErrSource, "does not make the shard"},
		{"a delta that removes what the far side lacks", func(t *testing.T, dir string) {
			editDelta(t, dir, delta, func(d map[string]any) {
				d["remove"] = []any{map[string]any{"id": "airvsx-demo.nowhere", "version": "1.0.0", "platform": "universal"}}
			})
		}, transfer.ErrSource, "entries to remove are not in it"},
		{"a delta that adds what the far side has", func(t *testing.T, dir string) {
			editDelta(t, dir, delta, func(d map[string]any) {
				var base struct{ Entries []any }
				farShard := filepath.Join(w.day1, "metadata", "targets", strings.TrimPrefix(d["base"].(string), "sha256:")+".shard-"+d["bin"].(string)+".json")
				if err := json.Unmarshal(filetest.ReadFile(t, farShard), &base); err != nil || len(base.Entries) == 0 {
					t.Fatalf("the delta's base %s: %v", farShard, err)
				}
				d["add"] = append(d["add"].([]any), base.Entries[0])
			})
		}, transfer.ErrSource, "is in it already"},
		{"the manifest's paths", func(t *testing.T, dir string) {
			p := filepath.Join(dir, transfer.BundleManifestName)
			data := strings.Replace(string(filetest.ReadFile(t, p)), "  blobs/", "  blobs/../", 1)
			filetest.WriteFile(t, p, []byte(data))
		}, nil, "empty, . or .. element"},
		{"the manifest's step", func(t *testing.T, dir string) {
			p := filepath.Join(dir, transfer.BundleManifestName)
			data := strings.Replace(string(filetest.ReadFile(t, p)), "from: 1 ", "from: 0 ", 1)
			filetest.WriteFile(t, p, []byte(data))
		}, nil, "serial 0 goes with -"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := filepath.Join(t.TempDir(), "b")
			filetest.CopyDir(t, dir, b)
			tc.damage(t, b)
			farDir := w.far(t)
			before := metadataFiles(t, farDir)
			_, _, err := transfer.Apply(t.Context(), b, openDir(t, farDir), w.options())
			if err == nil || tc.is != nil && !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v; want %v saying %q", err, tc.is, tc.want)
			}
			if got := metadataFiles(t, farDir); len(got) != len(before) {
				t.Errorf("a refused bundle changed the far side's metadata: %d files, were %d", len(got), len(before))
			}
			if got := w.verify(t, readOnly(t, farDir)); got != 1 {
				t.Errorf("far side at serial %d; want 1", got)
			}
		})
	}
	t.Run("another operator", func(t *testing.T) {
		farDir := w.far(t)
		o := w.options()
		o.Anchor = trust.Anchor{Key: w.other}
		_, _, err := transfer.Apply(t.Context(), dir, openDir(t, farDir), o)
		if !errors.Is(err, transfer.ErrSource) {
			t.Fatalf("err = %v; want ErrSource", err)
		}
	})
}

// TestBundleOnFAT writes a bundle onto a FAT32 file system image (mtools,
// no mount), reads it back from there and applies it: every name and file
// survives FAT as it is.
func TestBundleOnFAT(t *testing.T) {
	mkfs := citool.Need(t, "mkfs.vfat")
	citool.Need(t, "mcopy")
	w := newWeek(t)
	dir, _ := w.bundle(t, w.state(t))
	img := filepath.Join(t.TempDir(), "stick.img")
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
	}
	run(mkfs, "-F", "32", "-C", img, "65536")
	// -D o: a name clash overwrites (case-only duplicates would lose a
	// file, which the apply then names); nothing prompts.
	run("mcopy", "-s", "-Do", "-i", img, dir, "::bundle")
	back := filepath.Join(t.TempDir(), "back")
	run("mcopy", "-s", "-n", "-i", img, "::bundle", back)
	if got, want := filetest.Files(t, back), filetest.Files(t, dir); len(got) != len(want) {
		t.Fatalf("FAT kept %d files of %d", len(got), len(want))
	} else {
		for p, data := range want {
			if got[p] != data {
				t.Errorf("%s: changed on FAT", p)
			}
		}
	}
	farDir := w.far(t)
	dst := openDir(t, farDir)
	if _, _, err := transfer.Apply(t.Context(), back, dst, w.options()); err != nil {
		t.Fatal(err)
	}
	if got := w.verify(t, dst); got != 2 {
		t.Errorf("far side at serial %d; want 2", got)
	}
}

// TestApplySplices: each shard the bundle carries as a delta on the far
// side's shard is made without decoding either (index.SpliceShard), only
// the entries it adds are planned, and the far side then verifies with
// every entry counted, held or new.
func TestApplySplices(t *testing.T) {
	w := newWeek(t)
	dir, brep := w.bundle(t, w.state(t))
	deltas := strings.Count(fileList(brep.Manifest), "deltas/targets/")
	if deltas == 0 {
		t.Fatalf("no shard delta in the bundle:\n%s", fileList(brep.Manifest))
	}
	var logs bytes.Buffer
	opts := w.options()
	opts.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	far := openDir(t, w.far(t))
	rep, _, err := transfer.Apply(t.Context(), dir, far, opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("spliced=%d ", deltas); !strings.Contains(logs.String(), want) {
		t.Errorf("apply of a bundle with %d shard deltas did not splice them all (want %q in its log):\n%s", deltas, want, logs.String())
	}
	if rep.Held == 0 || rep.Held >= rep.Entries {
		t.Errorf("held %d of %d entries; want the far side's own counted, and some new", rep.Held, rep.Entries)
	}
	if serial := w.verify(t, far); serial != 2 {
		t.Errorf("the far side is at serial %d after the apply; want 2", serial)
	}
}
