package transfer_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/transfer"
)

// damage flips a byte in the middle of a stored blob: the same size, other
// bytes, as a bad sector or a careless edit on the USB stick leaves it.
func damage(t *testing.T, dir, repo, digest string) []byte {
	t.Helper()
	name := filepath.Join(dir, filepath.FromSlash(artifact.BlobName(repo, digest)))
	data := filetest.ReadFile(t, name)
	data[len(data)/2] ^= 1
	filetest.WriteFile(t, name, data)
	return data
}

// TestCopyRepair: a copy takes a blob of the right size as present unread;
// with Repair it reads each one, lists the damaged (in a dry run, writing
// nothing) and replaces them from the source, keeping the damaged bytes in
// the destination's quarantine; the result verifies and a second repair
// finds nothing.
func TestCopyRepair(t *testing.T) {
	reg := demoreg.Get(t)
	cat, _ := demoreg.ReadCatalog(t, reg.Dir)
	e := cat.Entries[0]
	repo := artifact.Repo(e.ID)
	dir := filepath.Join(t.TempDir(), "dst")
	filetest.CopyDir(t, reg.Dir, dir)
	// A layer (the vsix) and the manifest that names it.
	want := map[string][]byte{
		artifact.VsixDigest(&e): damage(t, dir, repo, artifact.VsixDigest(&e)),
		e.ManifestDigest:        damage(t, dir, repo, e.ManifestDigest),
	}
	// Another repository's index.json, and a third's oci-layout.
	var layoutRepos []string
	tagsOf := map[string]int{}
	for _, o := range cat.Entries {
		tagsOf[artifact.Repo(o.ID)]++
	}
	for r := range tagsOf {
		if r != repo && len(layoutRepos) < 2 {
			layoutRepos = append(layoutRepos, r)
		}
	}
	if len(layoutRepos) < 2 {
		t.Fatalf("the demo registry has %d repositories; want 3", len(tagsOf))
	}
	layoutFile := func(r, name string) string {
		return filepath.Join(dir, "extensions", filepath.FromSlash(r), name)
	}
	filetest.WriteFile(t, layoutFile(layoutRepos[0], "index.json"), []byte(`{"schemaVersion":2,"manifests":[`))
	filetest.WriteFile(t, layoutFile(layoutRepos[1], "oci-layout"), []byte(`{"imageLayoutVersion":"0.9"}`))
	src := readOnly(t, reg.Dir)

	dst := openDir(t, dir)
	_, err := transfer.Copy(t.Context(), src, dst, options(reg))
	if !errors.Is(err, store.ErrDamagedLayout) || !strings.Contains(err.Error(), layoutRepos[0]) {
		t.Fatalf("without Repair: Copy = %v; want ErrDamagedLayout naming %s", err, layoutRepos[0])
	}
	// Without the damaged index.json, a copy takes the blobs as present
	// by size, unread, and sees nothing wrong.
	good := filetest.ReadFile(t, filepath.Join(reg.Dir, "extensions", filepath.FromSlash(layoutRepos[0]), "index.json"))
	damagedIndex := filetest.ReadFile(t, layoutFile(layoutRepos[0], "index.json"))
	filetest.WriteFile(t, layoutFile(layoutRepos[0], "index.json"), good)
	rep, err := transfer.Copy(t.Context(), src, dst, options(reg))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files() != 0 || len(rep.Damaged) != 0 {
		t.Fatalf("without Repair: %d files moved, %d damaged; want 0, 0 (present by size, unread)", rep.Files(), len(rep.Damaged))
	}
	filetest.WriteFile(t, layoutFile(layoutRepos[0], "index.json"), damagedIndex)

	quarantine := func() map[string]string { return filetest.Files(t, filepath.Join(dir, "quarantine")) }
	before := quarantine()
	o := options(reg)
	o.Repair, o.DryRun = true, true
	rep, err = transfer.Copy(t.Context(), src, dst, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := damagedDigests(rep); len(got) != 4 || got[artifact.VsixDigest(&e)] == "" || got[e.ManifestDigest] == "" || got[layoutRepos[0]] == "" || got[layoutRepos[1]] == "" {
		t.Fatalf("dry run found damaged %v; want the vsix and the manifest of %s, and the layouts of %v", got, e.ID, layoutRepos)
	}
	for _, d := range rep.Damaged {
		// A blob's problem names the digest found, a layout's the file.
		if d.Quarantine != "" || !strings.Contains(d.Problem, "sha256:") && !strings.Contains(d.Problem, "extensions/"+d.Repo+"/") {
			t.Errorf("dry run: %+v; want a problem naming what was found and no quarantine", d)
		}
	}
	if len(quarantine()) != len(before) {
		t.Errorf("the dry run wrote to the quarantine")
	}

	o.DryRun = false
	rep, err = transfer.Copy(t.Context(), src, dst, o)
	if err != nil {
		t.Fatal(err)
	}
	wantTags := tagsOf[layoutRepos[0]] + tagsOf[layoutRepos[1]]
	if rep.Blobs != 2 || rep.Tags != wantTags || len(rep.Metadata) != 0 {
		t.Errorf("repair moved %d blobs, %d tags, %v; want 2 blobs and the %d tags of the two layouts", rep.Blobs, rep.Tags, rep.Metadata, wantTags)
	}
	got := damagedDigests(rep)
	want[layoutRepos[0]+" index.json"] = damagedIndex
	want[layoutRepos[1]+" oci-layout"] = []byte(`{"imageLayoutVersion":"0.9"}`)
	for key, data := range want {
		// A blob by digest, kept as its hex; a layout file by repository.
		what, file, isLayout := strings.Cut(key, " ")
		loc, prefix := got[what], "quarantine/damaged-blob-"
		if isLayout {
			prefix = "quarantine/damaged-layout-"
		} else {
			file = strings.TrimPrefix(key, "sha256:")
		}
		if !strings.HasPrefix(loc, prefix) {
			t.Errorf("%s kept at %q; want %s…", key, loc, prefix)
			continue
		}
		// The damaged bytes are kept, never deleted, with the reason.
		kept := filetest.ReadFile(t, filepath.Join(dir, filepath.FromSlash(loc), file))
		if string(kept) != string(data) {
			t.Errorf("%s/%s does not hold the damaged bytes", loc, file)
		}
		if reason := filetest.ReadFile(t, filepath.Join(dir, filepath.FromSlash(loc), store.ReasonFile)); !strings.Contains(string(reason), "airvsx copy --repair") {
			t.Errorf("%s/REASON = %q; want it to say what replaced the blob", loc, reason)
		}
	}
	mustVerify(t, reg, dst)

	rep, err = transfer.Copy(t.Context(), src, dst, o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files() != 0 || len(rep.Damaged) != 0 {
		t.Errorf("second repair: %d files, %d damaged; want nothing", rep.Files(), len(rep.Damaged))
	}
}

// TestCopyRepairRefused: a destination that cannot replace a blob it
// holds is refused, before anything is written, naming the blob.
func TestCopyRepairRefused(t *testing.T) {
	reg := demoreg.Get(t)
	cat, _ := demoreg.ReadCatalog(t, reg.Dir)
	e := cat.Entries[0]
	repo, digest := artifact.Repo(e.ID), artifact.VsixDigest(&e)
	dst := storetest.MemFromDir(t, reg.Dir)
	data, _ := dst.RawBlob(repo, digest)
	data[len(data)/2] ^= 1
	dst.SetRawBlob(repo, digest, data)
	o := options(reg)
	o.Repair = true
	rep, err := transfer.Copy(t.Context(), readOnly(t, reg.Dir), dst, o)
	if !errors.Is(err, transfer.ErrRefused) || !strings.Contains(err.Error(), digest) {
		t.Fatalf("Copy = %v; want ErrRefused naming %s", err, digest)
	}
	if len(rep.Damaged) != 1 || rep.Damaged[0].Quarantine != "" {
		t.Errorf("report lists %+v; want the one damaged blob, not replaced", rep.Damaged)
	}
	if got, _ := dst.RawBlob(repo, digest); string(got) != string(data) {
		t.Error("the refused copy changed the blob")
	}
}

// damagedDigests maps each damaged blob's digest, and each damaged
// layout's repository, to where it was kept.
func damagedDigests(rep *transfer.Report) map[string]string {
	out := map[string]string{}
	for _, d := range rep.Damaged {
		k := d.Digest
		if k == "" {
			k = d.Repo
		}
		out[k] = d.Quarantine
		if d.Quarantine == "" {
			out[k] = "(not kept)"
		}
	}
	return out
}

// TestCopyRestoresLostLayout: a repository whose blobs are there but whose
// oci-layout and index.json are gone gets them, and its tags, again from
// a plain copy (nothing was damaged, only lost).
func TestCopyRestoresLostLayout(t *testing.T) {
	reg := demoreg.Get(t)
	cat, _ := demoreg.ReadCatalog(t, reg.Dir)
	repo := artifact.Repo(cat.Entries[0].ID)
	dir := filepath.Join(t.TempDir(), "dst")
	filetest.CopyDir(t, reg.Dir, dir)
	for _, name := range []string{"oci-layout", "index.json"} {
		filetest.Remove(t, filepath.Join(dir, "extensions", filepath.FromSlash(repo), name))
	}
	dst := openDir(t, dir)
	rep, err := transfer.Copy(t.Context(), readOnly(t, reg.Dir), dst, options(reg))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Blobs != 0 || rep.Tags == 0 {
		t.Errorf("copied %d blobs, %d tags; want only the tags of %s", rep.Blobs, rep.Tags, repo)
	}
	mustVerify(t, reg, dst)
}
