package store_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index/store"
)

// spy is a Store that records every call that reaches it.
type spy struct{ calls []string }

func (s *spy) call(name string) { s.calls = append(s.calls, name) }

func (s *spy) StatBlob(context.Context, string, string) (int64, error) {
	s.call("StatBlob")
	return 0, nil
}
func (s *spy) PutBlob(context.Context, string, string, int64, store.Content) error {
	s.call("PutBlob")
	return nil
}
func (s *spy) OpenBlob(context.Context, string, string, int64) (io.ReadCloser, error) {
	s.call("OpenBlob")
	return io.NopCloser(strings.NewReader("")), nil
}
func (s *spy) Tag(context.Context, string, string, store.Descriptor) error {
	s.call("Tag")
	return nil
}
func (s *spy) Tags(context.Context, string) ([]store.TagEntry, error) {
	s.call("Tags")
	return nil, nil
}
func (s *spy) Untag(context.Context, string, string) error { s.call("Untag"); return nil }
func (s *spy) Repos(context.Context) ([]string, error)     { s.call("Repos"); return nil, nil }
func (s *spy) ListMetadata(context.Context) ([]string, error) {
	s.call("ListMetadata")
	return nil, nil
}
func (s *spy) ReadMetadata(context.Context, string, int64) ([]byte, error) {
	s.call("ReadMetadata")
	return nil, nil
}
func (s *spy) WriteMetadata(context.Context, string, []byte) error {
	s.call("WriteMetadata")
	return nil
}
func (s *spy) Quarantine(context.Context, string, string, map[string]io.Reader) (string, error) {
	s.call("Quarantine")
	return "", nil
}
func (s *spy) Close() error { return nil }

const (
	goodRepo   = "golang/go"
	goodDigest = "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
)

// TestCheckedRefusesBeforeTheStore: a bad name, a done context or a write
// to a read-only store is refused by the wrapper, and the store never
// sees the call; good calls reach it.
func TestCheckedRefusesBeforeTheStore(t *testing.T) {
	ctx := t.Context()
	done, cancel := context.WithCancel(ctx)
	cancel()
	manifest := store.Descriptor{MediaType: "application/vnd.oci.image.manifest.v1+json", Digest: goodDigest, Size: 2}
	calls := []struct {
		name string
		call func(s store.Store) error
	}{
		{"StatBlob bad repo", func(s store.Store) error { _, err := s.StatBlob(ctx, "../x", goodDigest); return err }},
		{"StatBlob bad digest", func(s store.Store) error { _, err := s.StatBlob(ctx, goodRepo, "sha256:../../x"); return err }},
		{"PutBlob bad repo", func(s store.Store) error {
			return s.PutBlob(ctx, "CON/x", goodDigest, 2, store.BytesContent([]byte("{}")))
		}},
		{"OpenBlob bad digest", func(s store.Store) error { _, err := s.OpenBlob(ctx, goodRepo, "md5:00", 2); return err }},
		{"Tag bad tag", func(s store.Store) error { return s.Tag(ctx, goodRepo, "../t", manifest) }},
		{"Tag bad manifest digest", func(s store.Store) error {
			return s.Tag(ctx, goodRepo, "t", store.Descriptor{MediaType: manifest.MediaType, Digest: "sha256:../../x", Size: 2})
		}},
		{"Tags bad repo", func(s store.Store) error { _, err := s.Tags(ctx, "a/b/c"); return err }},
		{"Untag bad repo", func(s store.Store) error { return s.Untag(ctx, "A/b", "t") }},
		{"ReadMetadata bad name", func(s store.Store) error { _, err := s.ReadMetadata(ctx, "../root.json", 10); return err }},
		{"WriteMetadata bad name", func(s store.Store) error { return s.WriteMetadata(ctx, "/etc/passwd", nil) }},
		{"Quarantine bad name", func(s store.Store) error { _, err := s.Quarantine(ctx, "a/b", "r", nil); return err }},
		{"Quarantine bad file", func(s store.Store) error {
			_, err := s.Quarantine(ctx, "q", "r", map[string]io.Reader{"REASON": strings.NewReader("")})
			return err
		}},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			sp := &spy{}
			if err := c.call(store.Checked(sp, false)); !errors.Is(err, store.ErrInvalidName) {
				t.Errorf("error %v; want ErrInvalidName", err)
			}
			if len(sp.calls) != 0 {
				t.Errorf("the store saw %v", sp.calls)
			}
		})
	}
	t.Run("done context", func(t *testing.T) {
		sp := &spy{}
		if _, err := store.Checked(sp, false).StatBlob(done, goodRepo, goodDigest); !errors.Is(err, context.Canceled) {
			t.Errorf("error %v; want context.Canceled", err)
		}
		if len(sp.calls) != 0 {
			t.Errorf("the store saw %v", sp.calls)
		}
	})
	writes := []func(s store.Store) error{
		func(s store.Store) error {
			return s.PutBlob(ctx, goodRepo, goodDigest, 2, store.BytesContent([]byte("{}")))
		},
		func(s store.Store) error { return s.Tag(ctx, goodRepo, "t", manifest) },
		func(s store.Store) error { return s.Untag(ctx, goodRepo, "t") },
		func(s store.Store) error { return s.WriteMetadata(ctx, "root.json", nil) },
		func(s store.Store) error { _, err := s.Quarantine(ctx, "q", "r", nil); return err },
	}
	for i, w := range writes {
		sp := &spy{}
		if err := w(store.Checked(sp, true)); !errors.Is(err, store.ErrReadOnly) {
			t.Errorf("write %d to a read-only store: %v; want ErrReadOnly", i, err)
		}
		if len(sp.calls) != 0 {
			t.Errorf("write %d to a read-only store: the store saw %v", i, sp.calls)
		}
		sp = &spy{}
		if err := w(store.Checked(sp, false)); err != nil || len(sp.calls) != 1 {
			t.Errorf("write %d: %v, the store saw %v; want it passed on", i, err, sp.calls)
		}
	}
}

// TestAsSeesThroughChecked: a capability of the wrapped store is found
// through the wrapper.
func TestAsSeesThroughChecked(t *testing.T) {
	sp := &spy{}
	s := store.Checked(sp, false)
	if got, ok := store.As[*spy](s); !ok || got != sp {
		t.Errorf("As[*spy](Checked(sp)) = %v, %v; want sp", got, ok)
	}
	if _, ok := store.As[store.Committer](s); ok {
		t.Error("As[Committer] found a capability the store does not offer")
	}
}
