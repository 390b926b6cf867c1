package place_test

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/place"
)

func TestParseKinds(t *testing.T) {
	tests := []struct {
		in                                   string
		name                                 store.PlaceKind
		local, network, commitSigned, repair bool
	}{
		{"registry", store.PlaceDir, true, false, false, true},
		{"git:reg.git#main", store.PlaceGit, true, false, true, false},
		{"docker://127.0.0.1:5000/airvsx", store.PlaceDocker, false, true, false, false},
	}
	for _, tt := range tests {
		_, k, err := place.Parse(tt.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.in, err)
		}
		if k.Name != tt.name || k.Local != tt.local || k.Network != tt.network || k.CommitSigned != tt.commitSigned || k.Repairable != tt.repair {
			t.Errorf("Parse(%q) kind = %+v", tt.in, k)
		}
	}
	if _, _, err := place.Parse("ftp://x/y"); !errors.Is(err, store.ErrUnknownPlace) {
		t.Errorf("Parse(ftp://) = %v; want ErrUnknownPlace", err)
	}
	if _, err := place.KindOf(store.Place{Kind: "tape"}); !errors.Is(err, store.ErrUnknownPlace) {
		t.Errorf("KindOf(tape) = %v; want ErrUnknownPlace", err)
	}
}

// TestOpenChecked: what Open returns for every local kind refuses a bad
// name and (a directory) opened read-only, a write, before the store sees
// either.
func TestOpenChecked(t *testing.T) {
	ctx := t.Context()
	for _, where := range []string{"reg", "git:reg.git"} {
		t.Run(where, func(t *testing.T) {
			dir := t.TempDir()
			p, _, err := place.Parse(where)
			if err != nil {
				t.Fatal(err)
			}
			p.Path = filepath.Join(dir, p.Path)
			st, err := place.Open(ctx, p, place.Options{Write: true})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.StatBlob(ctx, "../escape", "sha256:00"); !errors.Is(err, store.ErrInvalidName) {
				t.Errorf("StatBlob(bad names) = %v; want ErrInvalidName", err)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			if p.Kind == store.PlaceGit {
				return // a git registry with no commit cannot be read
			}
			ro, err := place.Open(ctx, p, place.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer ro.Close()
			if err := ro.WriteMetadata(ctx, "root.json", []byte("{}")); !errors.Is(err, store.ErrReadOnly) {
				t.Errorf("WriteMetadata on a read-only open = %v; want ErrReadOnly", err)
			}
		})
	}
}

// TestOpenMissing: a local place opened for reading that does not exist
// is a *NotExistError naming its kind, wrapping fs.ErrNotExist.
func TestOpenMissing(t *testing.T) {
	for _, where := range []string{"missing", "git:missing.git"} {
		p, k, err := place.Parse(where)
		if err != nil {
			t.Fatal(err)
		}
		p.Path = filepath.Join(t.TempDir(), p.Path)
		_, err = place.Open(t.Context(), p, place.Options{})
		var ne *place.NotExistError
		if !errors.As(err, &ne) || ne.Kind != k || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%s) = %v; want a *NotExistError of its kind wrapping fs.ErrNotExist", where, err)
		}
	}
}
