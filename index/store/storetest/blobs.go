package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"testing"

	"github.com/airvsx/airvsx/index/store"
)

func testBlobRoundTrip(t *testing.T, s store.Store) {
	for _, b := range [][]byte{{}, []byte("hello"), randomBytes(3<<20+17, 1)} {
		d := put(t, s, repo, b)
		size, err := s.StatBlob(t.Context(), repo, d)
		if err != nil || size != int64(len(b)) {
			t.Errorf("StatBlob(%s) = %d, %v; want %d, nil", d, size, err, len(b))
		}
		got, err := read(t, s, repo, d, int64(len(b)))
		if err != nil {
			t.Fatalf("OpenBlob(%s) read: %v", d, err)
		}
		if !bytes.Equal(got, b) {
			t.Errorf("OpenBlob(%s) read %d bytes; want the %d put", d, len(got), len(b))
		}
	}
}

func testBlobMissing(t *testing.T, s store.Store) {
	d := digestOf([]byte("absent"))
	wantNotExist(t, s, repo, d)
	if _, err := read(t, s, repo, d, 6); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenBlob(absent) = %v; want fs.ErrNotExist", err)
	}
	put(t, s, repo, []byte("present"))
	wantNotExist(t, s, repo, d)
	wantNotExist(t, s, "other/repo", digestOf([]byte("present")))
}

func testPutMismatch(t *testing.T, s store.Store) {
	hello := []byte("hello")
	tests := []struct {
		name    string
		digest  string
		size    int64
		content []byte
	}{
		{"wrong digest", digestOf([]byte("world")), 5, hello},
		{"content shorter than size", digestOf(hello), 6, hello},
		{"content longer than size", digestOf(hello), 4, hello},
		{"empty content", digestOf(hello), 5, nil},
		{"longer than size, right digest of prefix", digestOf(hello[:4]), 4, hello},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := fmt.Sprintf("mismatch/r%d", i)
			err := s.PutBlob(t.Context(), r, tt.digest, tt.size, store.BytesContent(tt.content))
			var me *store.MismatchError
			if !errors.Is(err, store.ErrMismatch) || !errors.As(err, &me) {
				t.Fatalf("PutBlob = %v; want a *MismatchError wrapping ErrMismatch", err)
			}
			if me.Digest != tt.digest || me.Size != tt.size {
				t.Errorf("MismatchError = %+v; want Digest %s, Size %d", me, tt.digest, tt.size)
			}
			wantNotExist(t, s, r, tt.digest)
			repos, err := s.Repos(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(repos, r) {
				t.Errorf("Repos() = %v; a rejected put left %s behind", repos, r)
			}
		})
	}
}

func testPutReaderError(t *testing.T, s store.Store) {
	b := randomBytes(1<<20, 2)
	d := digestOf(b)
	err := s.PutBlob(t.Context(), repo, d, int64(len(b)), &failingReader{data: b, n: len(b) / 2})
	if !errors.Is(err, errBoom) {
		t.Fatalf("PutBlob with a failing reader = %v; want errBoom", err)
	}
	wantNotExist(t, s, repo, d)
	put(t, s, repo, b) // and a retry succeeds
}

func testPutIdempotent(t *testing.T, s store.Store) {
	b := []byte("same bytes twice")
	d := put(t, s, repo, b)
	put(t, s, repo, b)
	got, err := read(t, s, repo, d, int64(len(b)))
	if err != nil || !bytes.Equal(got, b) {
		t.Errorf("read after two puts = %q, %v; want %q", got, err, b)
	}
}

func testOpenWrongSize(t *testing.T, s store.Store) {
	b := []byte("twelve bytes")
	d := put(t, s, repo, b)
	for _, size := range []int64{0, 11, 13, 1 << 40} {
		got, err := read(t, s, repo, d, size)
		if !errors.Is(err, store.ErrMismatch) {
			t.Errorf("OpenBlob(size %d) read %q, %v; want ErrMismatch", size, got, err)
		}
		if int64(len(got)) > size {
			t.Errorf("OpenBlob(size %d) handed out %d bytes", size, len(got))
		}
	}
}

func testVerifyOnRead(t *testing.T, s store.Store, tamper func(*testing.T, store.Store, string, string)) {
	if tamper == nil {
		t.Skip("no Tamper hook")
	}
	b := randomBytes(100<<10, 3)
	d := put(t, s, repo, b)
	tamper(t, s, repo, d)
	_, err := read(t, s, repo, d, int64(len(b)))
	var me *store.MismatchError
	if !errors.Is(err, store.ErrMismatch) || !errors.As(err, &me) {
		t.Fatalf("reading a tampered blob = %v; want a *MismatchError", err)
	}
	if me.GotDigest == d {
		t.Errorf("MismatchError.GotDigest = the expected digest")
	}
}
