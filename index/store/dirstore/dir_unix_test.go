//go:build unix

package dirstore_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/internal/safefile"
)

// TestDirHostileTree opens registries whose files were planted by an
// attacker: symlinks out of the tree, pipes, oversized or malformed
// index.json.
func TestDirHostileTree(t *testing.T) {
	ctx := t.Context()
	d := newDir(t)
	good := putBlob(t, d, "golang/go", []byte("ok"))
	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("secret"), 0o644)
	secret := sha([]byte("secret"))

	// A blob that is a symlink out of the registry.
	if err := os.Symlink(outside, blobFile(d, "golang/go", secret)); err != nil {
		t.Fatal(err)
	}
	if _, err := d.StatBlob(ctx, "golang/go", secret); err == nil {
		t.Error("StatBlob(symlink) = nil error")
	}
	if _, err := d.OpenBlob(ctx, "golang/go", secret, 6); err == nil {
		t.Error("OpenBlob(symlink out of the registry) = nil error")
	}
	// A namespace that is a symlink out of the registry.
	evil := filepath.Join(t.TempDir(), "evil")
	os.MkdirAll(filepath.Join(evil, "x", "blobs", "sha256"), 0o755)
	os.WriteFile(filepath.Join(evil, "x", "blobs", "sha256", strings.TrimPrefix(secret, "sha256:")), []byte("secret"), 0o644)
	if err := os.Symlink(evil, filepath.Join(d.Path(), "extensions", "evil")); err != nil {
		t.Fatal(err)
	}
	if _, err := d.OpenBlob(ctx, "evil/x", secret, 6); err == nil {
		t.Error("OpenBlob through a symlinked namespace = nil error")
	}
	if err := d.PutBlob(ctx, "evil/y", sha([]byte("z")), 1, store.BytesContent([]byte("z"))); err == nil {
		t.Error("PutBlob through a symlinked namespace = nil error")
	}
	if _, err := os.Stat(filepath.Join(evil, "y")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("PutBlob wrote outside the registry: %v", err)
	}
	// A blob that is a FIFO: refused at once, not a hang.
	fifo := sha([]byte("fifo"))
	if err := syscall.Mkfifo(blobFile(d, "golang/go", fifo), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := d.OpenBlob(ctx, "golang/go", fifo, 4); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("OpenBlob(FIFO) = nil error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("OpenBlob(FIFO) hangs")
	}

	// Hostile index.json files.
	indexFile := filepath.Join(d.Path(), "extensions", "golang", "go", "index.json")
	goodIndex, _ := os.ReadFile(indexFile)
	valid := func(tag string) string {
		return `{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"` + good + `","size":2,"annotations":{"org.opencontainers.image.ref.name":"` + tag + `"}}`
	}
	for name, content := range map[string]string{
		"too large":      `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[` + strings.Repeat(" ", artifact.MaxIndexBytes) + `]}`,
		"unknown field":  `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[],"x":1}`,
		"trailing data":  `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}{}`,
		"schema 1":       `{"schemaVersion":1,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}`,
		"no tag":         `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"` + good + `","size":2}]}`,
		"bad tag":        `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[` + valid("../x") + `]}`,
		"duplicate tag":  `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[` + valid("a") + `,` + valid("a") + `]}`,
		"bad digest":     strings.Replace(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[`+valid("a")+`]}`, "sha256:", "sha256:../", 1),
		"not a manifest": strings.Replace(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[`+valid("a")+`]}`, "manifest.v1", "layer.v1", 1),
	} {
		os.WriteFile(indexFile, []byte(content), 0o644)
		if tags, err := d.Tags(ctx, "golang/go"); err == nil {
			t.Errorf("Tags with index.json %s = %v, nil; want an error", name, tags)
		}
		if err := d.Untag(ctx, "golang/go", "a"); err == nil {
			t.Errorf("Untag with index.json %s = nil error", name)
		}
	}
	os.WriteFile(indexFile, goodIndex, 0o644)
	if _, err := d.Tags(ctx, "golang/go"); err != nil {
		t.Errorf("Tags with the good index.json back: %v", err)
	}
	// Junk in extensions/ is skipped by Repos.
	os.MkdirAll(filepath.Join(d.Path(), "extensions", "UPPER", "case"), 0o755)
	os.WriteFile(filepath.Join(d.Path(), "extensions", "stray-file"), nil, 0o644)
	repos, err := d.Repos(ctx)
	if err != nil || !slices.Equal(repos, []string{"golang/go"}) {
		t.Errorf("Repos() = %v, %v; want [golang/go]", repos, err)
	}
}

// TestOpenDirLinkedSkeleton: a registry (a stick's, say) whose metadata/,
// extensions/ or quarantine/ is a symbolic link out of it is refused when
// opened for writing, naming the folder and what is wrong with it in the
// words every other escaping path gets; nothing is made through the link.
func TestOpenDirLinkedSkeleton(t *testing.T) {
	for _, dir := range []string{"metadata", "extensions", "quarantine"} {
		t.Run(dir, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "reg")
			d := storetest.OpenDir(t, path, dirstore.Options{Create: true})
			d.Close()
			outside := t.TempDir()
			if err := os.RemoveAll(filepath.Join(path, dir)); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(path, dir)); err != nil {
				t.Fatal(err)
			}
			d, err := dirstore.Open(path, dirstore.Options{})
			if err == nil {
				d.Close()
				t.Fatalf("OpenDir with %s/ linked out of the registry succeeded", dir)
			}
			if !errors.Is(err, safefile.ErrEscapes) || !strings.Contains(err.Error(), dir+"/: it leads out of the registry through a symbolic link") {
				t.Errorf("OpenDir: %v; want %s/ named, with safefile.ErrEscapes", err, dir)
			}
			if left, _ := os.ReadDir(outside); len(left) > 0 {
				t.Errorf("OpenDir wrote %d files through the link", len(left))
			}
		})
	}
}
