package storetest

import (
	"bytes"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/google/go-cmp/cmp"
)

func testTags(t *testing.T, s store.Store) {
	ctx := t.Context()
	if _, err := s.Tags(ctx, repo); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Tags(unknown repo) = %v; want fs.ErrNotExist", err)
	}
	a, b, c := manifest(t, s, repo, "a"), manifest(t, s, repo, "b"), manifest(t, s, repo, "c")
	for _, tag := range []struct {
		name string
		d    store.Descriptor
	}{{"universal-1.0.0", c}, {"linux-x64-1.0.0", a}, {"universal-0.9.0", b}} {
		if err := s.Tag(ctx, repo, tag.name, tag.d); err != nil {
			t.Fatalf("Tag(%s): %v", tag.name, err)
		}
	}
	want := map[string]store.Descriptor{"linux-x64-1.0.0": a, "universal-0.9.0": b, "universal-1.0.0": c}
	if diff := cmp.Diff(want, tags(t, s, repo)); diff != "" {
		t.Errorf("Tags (-want +got):\n%s", diff)
	}
	if err := s.Tag(ctx, repo, "universal-0.9.0", a); err != nil {
		t.Fatalf("retag: %v", err)
	}
	want["universal-0.9.0"] = a
	if diff := cmp.Diff(want, tags(t, s, repo)); diff != "" {
		t.Errorf("Tags after retag (-want +got):\n%s", diff)
	}

	missing := store.Descriptor{MediaType: artifact.MediaTypeManifest, Digest: digestOf([]byte("nope")), Size: 4}
	if err := s.Tag(ctx, repo, "web-1.0.0", missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Tag(absent manifest) = %v; want fs.ErrNotExist", err)
	}
	wrongSize := a
	wrongSize.Size++
	if err := s.Tag(ctx, repo, "web-1.0.0", wrongSize); !errors.Is(err, store.ErrMismatch) {
		t.Errorf("Tag(wrong size) = %v; want ErrMismatch", err)
	}
	notManifest := a
	notManifest.MediaType = "application/octet-stream"
	if err := s.Tag(ctx, repo, "web-1.0.0", notManifest); err == nil {
		t.Error("Tag(media type application/octet-stream) = nil; want an error")
	}
	if diff := cmp.Diff(want, tags(t, s, repo)); diff != "" {
		t.Errorf("failed Tag calls changed the tags (-want +got):\n%s", diff)
	}
}

func testUntag(t *testing.T, s store.Store) {
	ctx := t.Context()
	if err := s.Untag(ctx, "never/seen", "universal-1.0.0"); err != nil {
		t.Errorf("Untag(unknown repo) = %v; want nil", err)
	}
	a, b := manifest(t, s, repo, "a"), manifest(t, s, repo, "b")
	for tag, d := range map[string]store.Descriptor{"x": a, "y": b, "z": a} {
		if err := s.Tag(ctx, repo, tag, d); err != nil {
			t.Fatal(err)
		}
	}
	for _, tag := range []string{"y", "y", "absent"} {
		if err := s.Untag(ctx, repo, tag); err != nil {
			t.Errorf("Untag(%s) = %v", tag, err)
		}
	}
	if diff := cmp.Diff(map[string]store.Descriptor{"x": a, "z": a}, tags(t, s, repo)); diff != "" {
		t.Errorf("Tags after Untag (-want +got):\n%s", diff)
	}
	if _, err := s.StatBlob(ctx, repo, b.Digest); err != nil {
		t.Errorf("Untag removed the manifest blob: %v", err)
	}
}

func testRepos(t *testing.T, s store.Store) {
	ctx := t.Context()
	got, err := s.Repos(ctx)
	if err != nil || len(got) != 0 {
		t.Fatalf("Repos() of a new store = %v, %v; want none", got, err)
	}
	for _, r := range []string{"b/x", "a-b/y", "a/z", "a/z", "ms-python/python"} {
		put(t, s, r, []byte(r))
	}
	d := manifest(t, s, "redhat/java", "m")
	if err := s.Tag(ctx, "redhat/java", "universal-1.0.0", d); err != nil {
		t.Fatal(err)
	}
	got, err = s.Repos(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a-b/y", "a/z", "b/x", "ms-python/python", "redhat/java"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Repos() (-want +got):\n%s", diff)
	}
}

func testArtifact(t *testing.T, s store.Store) {
	ctx := t.Context()
	vsix := randomBytes(10<<10, 6)
	readme := []byte("# Go\n")
	info := artifact.ArtifactInfo{
		ID:             index.MustParseID("Golang.Go"),
		Version:        "0.40.0+build.7",
		Platform:       index.LinuxX64,
		Created:        time.Date(2025, 3, 4, 3, 29, 7, 108336000, time.UTC),
		UpstreamSHA256: strings.TrimPrefix(digestOf(vsix), "sha256:"),
	}
	layers := []artifact.Layer{
		{Role: artifact.RoleReadme, Title: "README.md", Digest: digestOf(readme), Size: int64(len(readme))},
		{Role: artifact.RoleVsix, Title: "golang.go-0.40.0@linux-x64.vsix", Digest: digestOf(vsix), Size: int64(len(vsix))},
	}
	b, err := artifact.BuildManifest(info, layers)
	if err != nil {
		t.Fatal(err)
	}
	repo := artifact.Repo(info.ID)
	put(t, s, repo, vsix)
	if _, err := artifact.PutArtifact(ctx, s, b); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("PutArtifact without the readme blob = %v; want fs.ErrNotExist", err)
	}
	if _, err := s.Tags(ctx, repo); err != nil {
		t.Fatal(err)
	}
	if got := tags(t, s, repo); len(got) != 0 {
		t.Fatalf("a failed PutArtifact tagged %v", got)
	}
	put(t, s, repo, readme)
	m, err := artifact.PutArtifact(ctx, s, b)
	if err != nil {
		t.Fatalf("PutArtifact: %v", err)
	}
	want := map[string]store.Descriptor{"linux-x64-0.40.0_build.7": m.Descriptor()}
	if diff := cmp.Diff(want, tags(t, s, repo)); diff != "" {
		t.Errorf("Tags after PutArtifact (-want +got):\n%s", diff)
	}
	got, err := read(t, s, repo, m.Digest, m.Size)
	if err != nil || !bytes.Equal(got, b) {
		t.Fatalf("reading the manifest back = %v", err)
	}
	if _, err := read(t, s, repo, artifact.EmptyConfigDigest, 2); err != nil {
		t.Errorf("reading the empty config: %v", err)
	}
}
