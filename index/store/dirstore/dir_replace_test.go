package dirstore_test

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/testkit/filetest"
)

// TestDirReplaceBlob: ReplaceBlob touches only a damaged blob, keeps the
// damaged bytes in the quarantine, and checks the new content as PutBlob
// does.
func TestDirReplaceBlob(t *testing.T) {
	const repo = "pub/ext"
	good := []byte("the right bytes of a blob")
	for _, tc := range []struct {
		name    string
		damage  bool   // flip a byte of the stored blob first
		cut     bool   // or cut it short
		absent  bool   // store nothing
		content []byte // what ReplaceBlob is given
		wantErr string // "" for success
	}{
		{name: "damaged", damage: true, content: good},
		{name: "cut short", cut: true, content: good},
		{name: "intact", content: good, wantErr: "intact"},
		{name: "absent", absent: true, content: good, wantErr: "no such file"},
		{name: "damaged, replaced with wrong bytes", damage: true, content: []byte("the wrong bytes of a blob"), wantErr: "does not match"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDir(t)
			digest := sha(good)
			putBlob(t, d, "pub/other", []byte("{}")) // the layout exists
			if !tc.absent {
				putBlob(t, d, repo, good)
			}
			name := blobFile(d, repo, digest)
			if tc.damage {
				filetest.FlipByte(t, name)
			}
			if tc.cut {
				filetest.WriteFile(t, name, good[:5])
			}
			var before []byte
			if !tc.absent {
				before = filetest.ReadFile(t, name)
			}
			loc, err := d.ReplaceBlob(t.Context(), repo, digest, int64(len(good)), "test", store.BytesContent(tc.content))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ReplaceBlob = %q, %v; want an error containing %q", loc, err, tc.wantErr)
				}
				if !tc.absent {
					if got := filetest.ReadFile(t, name); string(got) != string(before) {
						t.Error("a refused ReplaceBlob changed the stored blob")
					}
				} else if _, err := d.StatBlob(t.Context(), repo, digest); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("a refused ReplaceBlob stored the blob: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := filetest.ReadFile(t, name); string(got) != string(good) {
				t.Errorf("blob holds %q; want %q", got, good)
			}
			kept := filetest.ReadFile(t, filepath.Join(d.Path(), filepath.FromSlash(loc), strings.TrimPrefix(digest, "sha256:")))
			if string(kept) != string(before) {
				t.Errorf("%s holds %q; want the damaged bytes %q", loc, kept, before)
			}
			reason := filetest.ReadFile(t, filepath.Join(d.Path(), filepath.FromSlash(loc), store.ReasonFile))
			if !strings.Contains(string(reason), "test") || !strings.Contains(string(reason), digest) {
				t.Errorf("REASON = %q; want the reason given and the digest", reason)
			}
		})
	}
}

// TestDirReplaceLayout: CheckLayout finds a damaged oci-layout or
// index.json as verify does; ReplaceLayout keeps the damaged files in the
// quarantine and writes an empty layout, and refuses an intact or absent
// one.
func TestDirReplaceLayout(t *testing.T) {
	const repo = "pub/ext"
	for _, tc := range []struct {
		name    string
		file    string // the layout file written over, "" for none
		data    string
		wantErr string // ReplaceLayout's, "" for success
	}{
		{name: "index.json cut short", file: "index.json", data: `{"schemaVersion":2,`},
		{name: "index.json with an unknown field", file: "index.json", data: `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[],"extra":1}`},
		{name: "oci-layout of another version", file: "oci-layout", data: `{"imageLayoutVersion":"2.0.0"}`},
		{name: "intact", wantErr: "intact"},
		{name: "absent", file: "-", wantErr: "does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDir(t)
			layout := filepath.Join(d.Path(), "extensions", "pub", "ext")
			if tc.file != "-" {
				putBlob(t, d, repo, []byte("{}"))
			}
			if tc.file != "" && tc.file != "-" {
				filetest.WriteFile(t, filepath.Join(layout, tc.file), []byte(tc.data))
			}
			err := d.CheckLayout(t.Context(), repo)
			switch {
			case tc.wantErr == "" && !errors.Is(err, store.ErrDamagedLayout):
				t.Fatalf("CheckLayout = %v; want ErrDamagedLayout", err)
			case tc.wantErr == "intact" && err != nil:
				t.Fatalf("CheckLayout = %v; want nil", err)
			}
			loc, err := d.ReplaceLayout(t.Context(), repo, "test")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ReplaceLayout = %q, %v; want an error containing %q", loc, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := d.CheckLayout(t.Context(), repo); err != nil {
				t.Errorf("after ReplaceLayout, CheckLayout = %v", err)
			}
			if tags, err := d.Tags(t.Context(), repo); err != nil || len(tags) != 0 {
				t.Errorf("after ReplaceLayout, Tags = %v, %v; want none", tags, err)
			}
			kept := filetest.ReadFile(t, filepath.Join(d.Path(), filepath.FromSlash(loc), tc.file))
			if string(kept) != tc.data {
				t.Errorf("%s/%s = %q; want the damaged %q", loc, tc.file, kept, tc.data)
			}
		})
	}
}
