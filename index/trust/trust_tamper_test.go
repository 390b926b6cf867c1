package trust

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/testkit/signtest"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/theupdateframework/go-tuf/v2/metadata"
)

// fixture is a registry after two publishes with key, and a copy of its
// metadata directory after the first.
type fixture struct {
	key, other signature.SignerVerifier
	dir1, dir2 string // metadata after publish 1 and after publish 2
	root       []byte // 1.root.json
	cat1, cat2 []byte
	now        time.Time // after both publishes
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{key: signtest.Signer(t), other: signtest.Signer(t), cat1: trustCatalog(t, 1), cat2: trustCatalog(t, 2)}
	base := t.TempDir()
	f.dir1, f.dir2 = filepath.Join(base, "m1"), filepath.Join(base, "m2")
	mustPublish(t, DirMetadata(f.dir2), f.cat1, f.key, t0)
	filetest.CopyDir(t, f.dir2, f.dir1)
	f.now = t0.Add(time.Hour)
	mustPublish(t, DirMetadata(f.dir2), f.cat2, f.key, f.now)
	f.root = filetest.ReadFile(t, filepath.Join(f.dir2, "1.root.json"))
	return f
}

// clone returns a fresh copy of the metadata after publish 2.
func (f *fixture) clone(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "metadata")
	filetest.CopyDir(t, f.dir2, dst)
	return dst
}

// editMeta rewrites the metadata file name in dir through edit. With signers
// the file is re-signed by them; without, the old signatures are kept.
func editMeta[T header](t *testing.T, dir, name string, m *metadata.Metadata[T], edit func(*T), signers ...signature.Signer) []byte {
	t.Helper()
	if _, err := m.FromBytes(filetest.ReadFile(t, filepath.Join(dir, name))); err != nil {
		t.Fatal(err)
	}
	edit(&m.Signed)
	var data []byte
	var err error
	if len(signers) > 0 {
		data, err = signed(m, signers)
	} else {
		data, err = m.ToBytes(true)
	}
	if err != nil {
		t.Fatal(err)
	}
	filetest.WriteFile(t, filepath.Join(dir, name), data)
	return data
}

// relink points 2.snapshot.json at the current 2.targets.json and
// timestamp.json at the current 2.snapshot.json (length and hash), signing
// each with its signer, or keeping the old signature where it is nil.
func relink(t *testing.T, dir string, snapSigner, tsSigner signature.Signer) {
	t.Helper()
	sign := func(s signature.Signer) []signature.Signer {
		if s == nil {
			return nil
		}
		return []signature.Signer{s}
	}
	tg := filetest.ReadFile(t, filepath.Join(dir, "2.targets.json"))
	sn := editMeta(t, dir, "2.snapshot.json", metadata.Snapshot(), func(s *metadata.SnapshotType) {
		s.Meta["targets.json"] = metaFile(2, tg)
	}, sign(snapSigner)...)
	editMeta(t, dir, "timestamp.json", metadata.Timestamp(), func(s *metadata.TimestampType) {
		s.Meta["snapshot.json"] = metaFile(2, sn)
	}, sign(tsSigner)...)
}

func TestLoadTamper(t *testing.T) {
	f := newFixture(t)
	hex2 := index.SHA256Hex(f.cat2)
	catPath := filepath.Join("targets", hex2+".catalog.json")
	tests := []struct {
		name    string
		tamper  func(t *testing.T, dir string)
		wantErr error
		wantMsg string
		// maxRead caps the bytes Load may read of a file.
		maxRead map[string]int64
	}{
		{
			name: "untouched",
		},
		{
			name: "catalog byte flipped",
			tamper: func(t *testing.T, dir string) {
				filetest.FlipByte(t, filepath.Join(dir, catPath))
			},
			wantErr: ErrMismatch, wantMsg: "metadata/" + catPath,
		},
		{
			name: "catalog longer than declared",
			tamper: func(t *testing.T, dir string) {
				filetest.WriteFile(t, filepath.Join(dir, catPath), append(f.cat2, ' '))
			},
			wantErr: ErrMismatch, wantMsg: fmt.Sprintf("longer than the %d bytes declared", len(f.cat2)),
		},
		{
			name: "catalog replaced, targets re-hashed, not re-signed",
			tamper: func(t *testing.T, dir string) {
				evil := trustCatalog(t, 99)
				tf, _ := metadata.TargetFile().FromBytes(CatalogTarget, evil, "sha256")
				filetest.WriteFile(t, filepath.Join(dir, "targets", index.SHA256Hex(evil)+".catalog.json"), evil)
				editMeta(t, dir, "2.targets.json", metadata.Targets(), func(s *metadata.TargetsType) { s.Targets[CatalogTarget] = tf })
			},
			wantErr: ErrMismatch, wantMsg: "metadata/2.targets.json",
		},
		{
			name: "catalog replaced, whole chain re-hashed, not re-signed",
			tamper: func(t *testing.T, dir string) {
				evil := trustCatalog(t, 99)
				tf, _ := metadata.TargetFile().FromBytes(CatalogTarget, evil, "sha256")
				filetest.WriteFile(t, filepath.Join(dir, "targets", index.SHA256Hex(evil)+".catalog.json"), evil)
				editMeta(t, dir, "2.targets.json", metadata.Targets(), func(s *metadata.TargetsType) { s.Targets[CatalogTarget] = tf })
				relink(t, dir, nil, nil)
			},
			wantErr: ErrSignature, wantMsg: "metadata/timestamp.json",
		},
		{
			name: "targets edited and signed by another key",
			tamper: func(t *testing.T, dir string) {
				editMeta(t, dir, "2.targets.json", metadata.Targets(), func(s *metadata.TargetsType) {}, f.other)
				relink(t, dir, f.key, f.key)
			},
			wantErr: ErrSignature, wantMsg: "metadata/2.targets.json",
		},
		{
			name: "targets edited, signature kept",
			tamper: func(t *testing.T, dir string) {
				editMeta(t, dir, "2.targets.json", metadata.Targets(), func(s *metadata.TargetsType) { s.Expires = s.Expires.Add(time.Hour) })
				relink(t, dir, f.key, f.key)
			},
			wantErr: ErrSignature, wantMsg: "metadata/2.targets.json",
		},
		{
			name: "snapshot signed by another key",
			tamper: func(t *testing.T, dir string) {
				relink(t, dir, f.other, f.key)
			},
			wantErr: ErrSignature, wantMsg: "metadata/2.snapshot.json",
		},
		{
			name: "timestamp signed by another key",
			tamper: func(t *testing.T, dir string) {
				editMeta(t, dir, "timestamp.json", metadata.Timestamp(), func(s *metadata.TimestampType) {}, f.other)
			},
			wantErr: ErrSignature, wantMsg: "metadata/timestamp.json",
		},
		{
			name: "timestamp with a higher version, bad signature",
			tamper: func(t *testing.T, dir string) {
				editMeta(t, dir, "timestamp.json", metadata.Timestamp(), func(s *metadata.TimestampType) { s.Version = 7 })
			},
			wantErr: ErrSignature, wantMsg: "metadata/timestamp.json",
		},
		{
			name: "snapshot with a higher version, bad signature",
			tamper: func(t *testing.T, dir string) {
				editMeta(t, dir, "2.snapshot.json", metadata.Snapshot(), func(s *metadata.SnapshotType) { s.Version = 3 })
				filetest.CopyFile(t, filepath.Join(dir, "2.snapshot.json"), filepath.Join(dir, "3.snapshot.json"))
				editMeta(t, dir, "timestamp.json", metadata.Timestamp(), func(s *metadata.TimestampType) {
					s.Meta["snapshot.json"] = metaFile(3, filetest.ReadFile(t, filepath.Join(dir, "3.snapshot.json")))
				}, f.key)
			},
			wantErr: ErrSignature, wantMsg: "metadata/3.snapshot.json",
		},
		{
			name: "mix and match: snapshot 2 under timestamp 1",
			tamper: func(t *testing.T, dir string) {
				filetest.CopyFile(t, filepath.Join(f.dir1, "timestamp.json"), filepath.Join(dir, "timestamp.json"))
				filetest.CopyFile(t, filepath.Join(dir, "2.snapshot.json"), filepath.Join(dir, "1.snapshot.json"))
			},
			wantErr: ErrMismatch, wantMsg: "metadata/1.snapshot.json",
		},
		{
			name: "mix and match: targets 1 under snapshot 2",
			tamper: func(t *testing.T, dir string) {
				filetest.CopyFile(t, filepath.Join(dir, "1.targets.json"), filepath.Join(dir, "2.targets.json"))
			},
			wantErr: ErrMismatch, wantMsg: "metadata/2.targets.json",
		},
		{
			name: "snapshot version differs from the timestamp's (no hashes, signed)",
			tamper: func(t *testing.T, dir string) {
				editMeta(t, dir, "timestamp.json", metadata.Timestamp(), func(s *metadata.TimestampType) {
					s.Meta["snapshot.json"] = &metadata.MetaFiles{Version: 2}
				}, f.key)
				filetest.CopyFile(t, filepath.Join(dir, "1.snapshot.json"), filepath.Join(dir, "2.snapshot.json"))
			},
			wantErr: ErrMismatch, wantMsg: "metadata/2.snapshot.json: version 1, want 2",
		},
		{
			name: "targets version differs from the snapshot's (no hashes, signed)",
			tamper: func(t *testing.T, dir string) {
				filetest.CopyFile(t, filepath.Join(dir, "1.targets.json"), filepath.Join(dir, "2.targets.json"))
				sn := editMeta(t, dir, "2.snapshot.json", metadata.Snapshot(), func(s *metadata.SnapshotType) {
					s.Meta["targets.json"] = &metadata.MetaFiles{Version: 2}
				}, f.key)
				editMeta(t, dir, "timestamp.json", metadata.Timestamp(), func(s *metadata.TimestampType) {
					s.Meta["snapshot.json"] = metaFile(2, sn)
				}, f.key)
			},
			wantErr: ErrMismatch, wantMsg: "metadata/2.targets.json: version 1, want 2",
		},
		{
			name: "timestamp is a snapshot (_type)",
			tamper: func(t *testing.T, dir string) {
				filetest.CopyFile(t, filepath.Join(dir, "2.snapshot.json"), filepath.Join(dir, "timestamp.json"))
			},
			wantErr: ErrMalformed, wantMsg: "metadata/timestamp.json",
		},
		{
			name: "spec_version 2",
			tamper: func(t *testing.T, dir string) {
				editMeta(t, dir, "timestamp.json", metadata.Timestamp(), func(s *metadata.TimestampType) { s.SpecVersion = "2.0.0" }, f.key)
			},
			wantErr: ErrMalformed, wantMsg: "spec_version",
		},
		{
			name: "timestamp without snapshot meta (signed)",
			tamper: func(t *testing.T, dir string) {
				editMeta(t, dir, "timestamp.json", metadata.Timestamp(), func(s *metadata.TimestampType) { s.Meta = nil }, f.key)
			},
			wantErr: ErrMalformed, wantMsg: `meta["snapshot.json"]`,
		},
		{
			name: "targets without the catalog (signed)",
			tamper: func(t *testing.T, dir string) {
				editMeta(t, dir, "2.targets.json", metadata.Targets(), func(s *metadata.TargetsType) { delete(s.Targets, CatalogTarget) }, f.key)
				relink(t, dir, f.key, f.key)
			},
			wantErr: ErrMalformed, wantMsg: `targets["catalog.json"] missing`,
		},
		{
			name:    "timestamp.json missing",
			tamper:  func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "timestamp.json")) },
			wantErr: ErrMissing, wantMsg: "metadata/timestamp.json",
		},
		{
			name:    "snapshot missing",
			tamper:  func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "2.snapshot.json")) },
			wantErr: ErrMissing, wantMsg: "metadata/2.snapshot.json",
		},
		{
			name:    "targets missing",
			tamper:  func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "2.targets.json")) },
			wantErr: ErrMissing, wantMsg: "metadata/2.targets.json",
		},
		{
			name:    "catalog missing",
			tamper:  func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, catPath)) },
			wantErr: ErrMissing, wantMsg: "metadata/" + catPath,
		},
		{
			name: "oversize timestamp.json",
			tamper: func(t *testing.T, dir string) {
				filetest.WriteFile(t, filepath.Join(dir, "timestamp.json"), bytes.Repeat([]byte(" "), 10<<20))
			},
			wantErr: ErrMalformed, wantMsg: "larger than the 16384-byte cap",
			maxRead: map[string]int64{"timestamp.json": MaxTimestampBytes + 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := f.clone(t)
			if tt.tamper != nil {
				tt.tamper(t, dir)
			}
			fsys := &countingFS{MetadataFS: DirMetadata(dir)}
			got, err := Load(t.Context(), fsys, f.root, LoadOptions{Now: at(f.now)})
			t.Logf("Load: %v", err)
			for name, max := range tt.maxRead {
				if got := fsys.read[name]; got > max {
					t.Errorf("Load read %d bytes of %s; want at most %d", got, name, max)
				}
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Load = %v; want %v", err, tt.wantErr)
			}
			if err != nil {
				if !strings.Contains(err.Error(), tt.wantMsg) {
					t.Errorf("Load error %q does not contain %q", err, tt.wantMsg)
				}
				return
			}
			if !bytes.Equal(got.Catalog, f.cat2) {
				t.Errorf("Load returned catalog %q; want %q", got.Catalog, f.cat2)
			}
		})
	}
}

// countingFS counts the bytes read from each file.
type countingFS struct {
	MetadataFS
	read map[string]int64
}

func (c *countingFS) Open(name string) (io.ReadCloser, error) {
	rc, err := c.MetadataFS.Open(name)
	if err != nil {
		return nil, err
	}
	if c.read == nil {
		c.read = map[string]int64{}
	}
	return &countingReader{rc, name, c.read}, nil
}

type countingReader struct {
	io.ReadCloser
	name string
	read map[string]int64
}

func (r *countingReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	r.read[r.name] += int64(n)
	return n, err
}
