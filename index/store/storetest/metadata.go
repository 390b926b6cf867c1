package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index/store"
	"github.com/google/go-cmp/cmp"
)

func testMetadata(t *testing.T, s store.Store) {
	ctx := t.Context()
	if _, err := s.ReadMetadata(ctx, "root.json", 1<<20); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadMetadata(absent) = %v; want fs.ErrNotExist", err)
	}
	files := map[string][]byte{
		"root.json":                []byte(`{"signed":1}`),
		"1.root.json":              []byte(`{"signed":0}`),
		"catalog.json":             randomBytes(1<<20, 4),
		"targets/catalog.json":     []byte("nested"),
		"timestamp.json":           {},
		"deep/er/still/x-y_z.json": []byte("deep"),
	}
	for name, data := range files {
		if err := s.WriteMetadata(ctx, name, data); err != nil {
			t.Fatalf("WriteMetadata(%s): %v", name, err)
		}
	}
	if err := s.WriteMetadata(ctx, "root.json", []byte(`{"signed":2}`)); err != nil {
		t.Fatal(err)
	}
	files["root.json"] = []byte(`{"signed":2}`)
	for name, data := range files {
		got, err := s.ReadMetadata(ctx, name, int64(len(data)))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("ReadMetadata(%s, exact size) = %d bytes, %v; want the %d written", name, len(got), err, len(data))
		}
	}
	if _, err := s.ReadMetadata(ctx, "catalog.json", 1<<20-1); !errors.Is(err, store.ErrTooLarge) {
		t.Errorf("ReadMetadata(over maxSize) = %v; want ErrTooLarge", err)
	}
	if _, err := s.ReadMetadata(ctx, "targets", 1<<20); err == nil {
		t.Error("ReadMetadata(a directory) = nil error")
	}
	names, err := s.ListMetadata(ctx)
	want := slices.Sorted(maps.Keys(files))
	if err != nil || !slices.Equal(names, want) {
		t.Errorf("ListMetadata = %q, %v; want %q", names, err, want)
	}
}

func testQuarantine(t *testing.T, s store.Store) {
	ctx := t.Context()
	files := func() map[string]io.Reader {
		return map[string]io.Reader{
			"golang.go-0.40.0.vsix": strings.NewReader("not a zip"),
			"golang.go-0.40.0.json": strings.NewReader("{}"),
		}
	}
	p1, err := s.Quarantine(ctx, "golang.go-0.40.0", "sha256 mismatch: got sha256:00, want sha256:11", files())
	if err != nil || p1 != "quarantine/golang.go-0.40.0" {
		t.Fatalf("Quarantine = %q, %v; want the location quarantine/golang.go-0.40.0", p1, err)
	}
	p2, err := s.Quarantine(ctx, "golang.go-0.40.0", "again", files())
	if err != nil || !strings.HasPrefix(p2, "quarantine/golang.go-0.40.0") || p2 == p1 {
		t.Fatalf("second Quarantine of the same name = %q, %v; want a new place beside %q", p2, err, p1)
	}
	if _, err := s.Quarantine(ctx, "no-files", "the download failed", nil); err != nil {
		t.Errorf("Quarantine without files = %v", err)
	}
	err = func() error {
		_, err := s.Quarantine(ctx, "failing", "x", map[string]io.Reader{"a.vsix": &failingReader{data: []byte("abc"), n: 2}})
		return err
	}()
	if !errors.Is(err, errBoom) {
		t.Errorf("Quarantine with a failing reader = %v; want errBoom", err)
	}
}

func testHostileNames(t *testing.T, s store.Store) {
	ctx := t.Context()
	good := put(t, s, repo, []byte("x"))
	d := manifest(t, s, repo, "m")
	badRepos := []string{"", "golang", "golang/go/x", "Golang/go", "golang/Go", "../go", "golang/..", "golang/", "/golang/go",
		`golang\go`, "golang/go\x00", "con/go", "golang/nul", "golang/com1", "progra~1/x", "golang/a b", "golang/é", ".tmp-x/go", "golang/.tmp-x",
		strings.Repeat("a", 256) + "/go"}
	badDigests := []string{"", "sha256:", "sha256:" + strings.Repeat("a", 63), "sha256:" + strings.Repeat("A", 64), "sha512:" + strings.Repeat("a", 128),
		"sha256:" + strings.Repeat("a", 62) + "/.", "sha256:../../../../etc/passwd", strings.Repeat("a", 64), "SHA256:" + strings.Repeat("a", 64)}
	badTags := []string{"", ".x", "-x", "a/b", "a:b", "a b", "a\x00", strings.Repeat("a", 129), "é"}
	badMeta := []string{"", "/root.json", "../root.json", "a/../root.json", "./root.json", "a//b", "a/", ".hidden", ".tmp-x", `a\b`, "con.json",
		"a/nul", "x\x00", "a b", strings.Repeat("a/", 9) + "x", strings.Repeat("a", 256)}
	badQuarantine := []string{"", "a/b", "..", ".", ".tmp-x", "aux", strings.Repeat("a", 201)}

	wantInvalid := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, store.ErrInvalidName) {
			t.Errorf("%s = %v; want ErrInvalidName", what, err)
		}
	}
	// blobCalls calls every blob method with r and dg; bad is the one of
	// them that is invalid.
	blobCalls := func(r, dg, bad string) {
		t.Helper()
		_, err := s.StatBlob(ctx, r, dg)
		wantInvalid(fmt.Sprintf("StatBlob(%q)", bad), err)
		wantInvalid(fmt.Sprintf("PutBlob(%q)", bad), s.PutBlob(ctx, r, dg, 1, store.BytesContent([]byte("x"))))
		_, err = s.OpenBlob(ctx, r, dg, 1)
		wantInvalid(fmt.Sprintf("OpenBlob(%q)", bad), err)
	}
	for _, r := range badRepos {
		blobCalls(r, good, r)
		wantInvalid(fmt.Sprintf("Tag(%q)", r), s.Tag(ctx, r, "t", d))
		_, err := s.Tags(ctx, r)
		wantInvalid(fmt.Sprintf("Tags(%q)", r), err)
		wantInvalid(fmt.Sprintf("Untag(%q)", r), s.Untag(ctx, r, "t"))
	}
	for _, dg := range badDigests {
		blobCalls(repo, dg, dg)
		bad := d
		bad.Digest = dg
		wantInvalid(fmt.Sprintf("Tag(digest %q)", dg), s.Tag(ctx, repo, "t", bad))
	}
	for _, tag := range badTags {
		wantInvalid(fmt.Sprintf("Tag(%q)", tag), s.Tag(ctx, repo, tag, d))
		wantInvalid(fmt.Sprintf("Untag(%q)", tag), s.Untag(ctx, repo, tag))
	}
	for _, name := range badMeta {
		wantInvalid(fmt.Sprintf("WriteMetadata(%q)", name), s.WriteMetadata(ctx, name, []byte("x")))
		_, err := s.ReadMetadata(ctx, name, 10)
		wantInvalid(fmt.Sprintf("ReadMetadata(%q)", name), err)
	}
	for _, name := range badQuarantine {
		_, err := s.Quarantine(ctx, name, "r", nil)
		wantInvalid(fmt.Sprintf("Quarantine(%q)", name), err)
		if len(name) < 256 && len(name) > 200 {
			name += strings.Repeat("a", 55) // file names may be up to 255 bytes
		}
		_, err = s.Quarantine(ctx, "ok", "r", map[string]io.Reader{name: strings.NewReader("x")})
		wantInvalid(fmt.Sprintf("Quarantine(file %q)", name), err)
	}
	for _, files := range []map[string]io.Reader{
		{"REASON": strings.NewReader("x")},
		{"reason.json": strings.NewReader("x")},
		{"a.vsix": strings.NewReader("x"), "A.vsix": strings.NewReader("y")},
	} {
		_, err := s.Quarantine(ctx, "ok", "r", files)
		wantInvalid(fmt.Sprintf("Quarantine(files %v)", slices.Sorted(maps.Keys(files))), err)
	}
	repos, err := s.Repos(ctx)
	if err != nil || !slices.Equal(repos, []string{repo}) {
		t.Errorf("Repos() after hostile calls = %v, %v; want [%s]", repos, err, repo)
	}
	if diff := cmp.Diff(map[string]store.Descriptor{}, tags(t, s, repo)); diff != "" {
		t.Errorf("hostile calls made tags (-want +got):\n%s", diff)
	}
}
