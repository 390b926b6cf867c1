package trust

import (
	"errors"
	"testing"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/testkit/signtest"
)

// TestControl: a control list put before the publish that pins it is
// read back through the chain byte for byte; the chain names its file;
// a list changed after signing, or removed, is refused naming it.
func TestControl(t *testing.T) {
	fsys := memFS{}
	key := signtest.Signer(t)
	list := []byte(`{"malicious": ["evil"]}` + "\n")
	digest, err := PutControl(t.Context(), fsys, list)
	if err != nil {
		t.Fatal(err)
	}
	cat := shardCatalog(1, 3)
	cat.Control = []index.ControlRef{{Origin: index.ControlUpstream, Source: "https://x/extensions.json", FetchedAt: t0.UTC().Truncate(1e9), Digest: digest, Size: int64(len(list))}}
	if _, err := PublishCatalog(t.Context(), fsys, cat, key, PublishOptions{Now: at(t0)}); err != nil {
		t.Fatal(err)
	}
	load := func() (*Trusted, *index.Catalog) {
		t.Helper()
		tr, err := Load(t.Context(), fsys, fsys["1.root.json"], LoadOptions{Now: at(t0.Add(2e9))})
		if err != nil {
			t.Fatal(err)
		}
		head, err := tr.Head()
		if err != nil {
			t.Fatal(err)
		}
		return tr, head
	}
	tr, head := load()
	files, err := tr.Control(t.Context(), head)
	if err != nil || len(files) != 1 || string(files[0].Data) != string(list) || files[0].Ref.Origin != "upstream" {
		t.Fatalf("Control = %+v, %v", files, err)
	}
	name := controlName(digest)
	if !tr.Names(name) || !ContentNamed(name, list) || ContentNamed(name, []byte("other")) {
		t.Errorf("the chain does not name %s, or it is not content-named", name)
	}
	fsys[name] = []byte(`{"malicious": ["evi1"]}` + "\n")
	if _, err := tr.Control(t.Context(), head); !errors.Is(err, ErrMismatch) {
		t.Errorf("tampered list: %v; want ErrMismatch", err)
	} else if fe := (*FileError)(nil); !errors.As(err, &fe) || fe.File != ControlPath(head.Control[0]) {
		t.Errorf("tampered list: %v does not name %s", err, ControlPath(head.Control[0]))
	}
	delete(fsys, name)
	if _, err := tr.Control(t.Context(), head); !errors.Is(err, ErrMissing) {
		t.Errorf("missing list: %v; want ErrMissing", err)
	}
}
