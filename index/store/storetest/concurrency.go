package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/google/go-cmp/cmp"
)

func testContextCanceled(t *testing.T, s store.Store) {
	b := []byte("blob")
	d := put(t, s, repo, b)
	m := manifest(t, s, repo, "m")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	want := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a canceled context = %v; want context.Canceled", what, err)
		}
	}
	other := []byte("other")
	_, err := s.StatBlob(ctx, repo, d)
	want("StatBlob", err)
	want("PutBlob", s.PutBlob(ctx, repo, digestOf(other), int64(len(other)), store.BytesContent(other)))
	wantNotExist(t, s, repo, digestOf(other))
	_, err = s.OpenBlob(ctx, repo, d, int64(len(b)))
	want("OpenBlob", err)
	want("Tag", s.Tag(ctx, repo, "t", m))
	_, err = s.Tags(ctx, repo)
	want("Tags", err)
	want("Untag", s.Untag(ctx, repo, "t"))
	_, err = s.Repos(ctx)
	want("Repos", err)
	_, err = s.ReadMetadata(ctx, "root.json", 10)
	want("ReadMetadata", err)
	want("WriteMetadata", s.WriteMetadata(ctx, "root.json", []byte("x")))
	_, err = s.Quarantine(ctx, "q", "r", nil)
	want("Quarantine", err)

	// Canceled halfway through a put: nothing stored.
	big := randomBytes(4<<20, 5)
	ctx2, cancel2 := context.WithCancel(t.Context())
	r := &cancelingReader{r: bytes.NewReader(big), after: 1 << 20, cancel: cancel2}
	want("PutBlob canceled midway", s.PutBlob(ctx2, repo, digestOf(big), int64(len(big)), r))
	wantNotExist(t, s, repo, digestOf(big))

	// Canceled halfway through a read.
	put(t, s, repo, big)
	ctx3, cancel3 := context.WithCancel(t.Context())
	rc, err := s.OpenBlob(ctx3, repo, digestOf(big), int64(len(big)))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if _, err := io.ReadFull(rc, make([]byte, 1024)); err != nil {
		t.Fatal(err)
	}
	cancel3()
	_, err = io.Copy(io.Discard, rc)
	want("reading an OpenBlob reader", err)
}

func testConcurrent(t *testing.T, s store.Store) {
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	want := make(map[string]store.Descriptor)
	var mu sync.Mutex
	put(t, s, repo, []byte(artifact.EmptyConfig))
	for i := range n {
		wg.Go(func() {
			b := manifestBytes("", fmt.Sprint(i))
			d := digestOf(b)
			if err := s.PutBlob(t.Context(), repo, d, int64(len(b)), store.BytesContent(b)); err != nil {
				errs <- err
				return
			}
			desc := store.Descriptor{MediaType: artifact.MediaTypeManifest, Digest: d, Size: int64(len(b))}
			tag := fmt.Sprintf("universal-1.0.%d", i)
			if err := s.Tag(t.Context(), repo, tag, desc); err != nil {
				errs <- err
				return
			}
			mu.Lock()
			want[tag] = desc
			mu.Unlock()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if diff := cmp.Diff(want, tags(t, s, repo)); diff != "" {
		t.Errorf("Tags after concurrent tagging (-want +got):\n%s", diff)
	}
}
