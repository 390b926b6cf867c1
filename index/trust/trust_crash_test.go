package trust

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/testkit/signtest"
	"github.com/google/go-cmp/cmp"
)

// failingFS fails the n-th WriteFile (counting from 0), as a crash at that
// point would: the file is not written and nothing after it is.
type failingFS struct {
	MetadataFS
	n      int
	writes []string
}

var errCrash = errors.New("simulated crash")

func (c *failingFS) WriteFile(name string, data []byte) error {
	if len(c.writes) == c.n {
		c.writes = append(c.writes, name)
		return errCrash
	}
	c.writes = append(c.writes, name)
	return c.MetadataFS.WriteFile(name, data)
}

func TestPublishCrashLeavesPreviousValid(t *testing.T) {
	f := newFixture(t)
	// Publish 3 writes four files; crash before each of them.
	for n := range 4 {
		t.Run(fmt.Sprint("crash at write ", n), func(t *testing.T) {
			dir := f.clone(t)
			crash := &failingFS{MetadataFS: DirMetadata(dir), n: n}
			later := f.now.Add(time.Hour)
			if _, err := Publish(t.Context(), crash, trustCatalog(t, 3), f.key, PublishOptions{Now: at(later)}); !errors.Is(err, errCrash) {
				t.Fatalf("Publish = %v; want the simulated crash", err)
			}
			if n == 3 && crash.writes[n] != "timestamp.json" {
				t.Fatalf("last write was %s; want timestamp.json", crash.writes[n])
			}
			prev := &State{Root: 1, Timestamp: 2, Snapshot: 2, Targets: 2}
			got, err := Load(t.Context(), DirMetadata(dir), f.root, LoadOptions{Now: at(later), Previous: prev})
			if err != nil {
				t.Fatalf("Load after crash: %v", err)
			}
			if !bytes.Equal(got.Catalog, f.cat2) || got.State() != *prev {
				t.Errorf("Load after crash = catalog %q, state %+v; want the previous %q, %+v", got.Catalog, got.State(), f.cat2, *prev)
			}
			cat3 := trustCatalog(t, 4)
			res, err := Publish(t.Context(), DirMetadata(dir), cat3, f.key, PublishOptions{Now: at(later)})
			if err != nil {
				t.Fatalf("Publish after crash: %v", err)
			}
			got, err = Load(t.Context(), DirMetadata(dir), f.root, LoadOptions{Now: at(later), Previous: prev})
			if err != nil {
				t.Fatalf("Load after the next Publish: %v", err)
			}
			if !bytes.Equal(got.Catalog, cat3) || got.State() != res.State {
				t.Errorf("Load after the next Publish = catalog %q, state %+v; want %q, %+v", got.Catalog, got.State(), cat3, res.State)
			}
		})
	}
}

func TestFirstPublishCrash(t *testing.T) {
	key := signtest.Signer(t)
	dir := t.TempDir()
	crash := &failingFS{MetadataFS: DirMetadata(dir), n: 5} // timestamp.json
	if _, err := Publish(t.Context(), crash, trustCatalog(t, 1), key, PublishOptions{Now: at(t0)}); !errors.Is(err, errCrash) {
		t.Fatalf("Publish = %v; want the simulated crash", err)
	}
	root := filetest.ReadFile(t, filepath.Join(dir, "root.json"))
	if _, err := Load(t.Context(), DirMetadata(dir), root, LoadOptions{Now: at(t0)}); !errors.Is(err, ErrMissing) {
		t.Errorf("Load after a crashed first publish = %v; want ErrMissing", err)
	}
	res := mustPublish(t, DirMetadata(dir), trustCatalog(t, 1), key, t0)
	if diff := cmp.Diff(State{Root: 1, Timestamp: 1, Snapshot: 1, Targets: 1}, res.State); diff != "" {
		t.Errorf("Publish after a crashed first publish (-want +got):\n%s", diff)
	}
	if _, err := Load(t.Context(), DirMetadata(dir), root, LoadOptions{Now: at(t0)}); err != nil {
		t.Errorf("Load: %v", err)
	}
}
