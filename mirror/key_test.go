package mirror_test

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/mirror"
)

// TestStartKey: the context StartKey returns is cancelled with the key's
// error as soon as a wrong password shows, and Err names that error in
// place of the sync's; with the right password the context runs on until
// Stop; a missing key file fails at once.
func TestStartKey(t *testing.T) {
	keyPath, _, err := trust.WriteKeyPair(filepath.Join(t.TempDir(), "airvsx"), []byte("right"))
	if err != nil {
		t.Fatal(err)
	}
	errSync := errors.New("the sync's own error")

	t.Run("wrong password", func(t *testing.T) {
		ctx, key, err := mirror.StartKey(t.Context(), keyPath, []byte("wrong"))
		if err != nil {
			t.Fatalf("StartKey: %v", err)
		}
		defer key.Stop()
		select {
		case <-ctx.Done():
		case <-time.After(time.Minute):
			t.Fatal("the context was not cancelled a minute after StartKey with a wrong password")
		}
		if cause := context.Cause(ctx); !errors.Is(cause, trust.ErrPassword) {
			t.Errorf("the context's cause = %v; want an error wrapping trust.ErrPassword", cause)
		}
		if err := key.Err(context.Canceled); !errors.Is(err, trust.ErrPassword) {
			t.Errorf("Err(context.Canceled) = %v; want the key's error, wrapping trust.ErrPassword", err)
		}
		if err := key.Err(nil); err != nil {
			t.Errorf("Err(nil) = %v; want nil (the sync did not fail)", err)
		}
	})

	t.Run("right password", func(t *testing.T) {
		ctx, key, err := mirror.StartKey(t.Context(), keyPath, []byte("right"))
		if err != nil {
			t.Fatalf("StartKey: %v", err)
		}
		if _, err := key.Signer().Wait(t.Context()); err != nil {
			t.Fatalf("Signer().Wait: %v", err)
		}
		if ctx.Err() != nil {
			t.Errorf("the context is done (%v) with a usable key", context.Cause(ctx))
		}
		if err := key.Err(errSync); err != errSync {
			t.Errorf("Err(errSync) = %v; want errSync itself", err)
		}
		key.Stop()
		if !errors.Is(context.Cause(ctx), context.Canceled) {
			t.Errorf("after Stop the context's cause = %v; want context.Canceled", context.Cause(ctx))
		}
	})

	t.Run("missing key file", func(t *testing.T) {
		ctx, key, err := mirror.StartKey(t.Context(), filepath.Join(t.TempDir(), "none.key"), []byte("right"))
		if !errors.Is(err, fs.ErrNotExist) || key != nil {
			t.Fatalf("StartKey = %v, %v; want no key and an error wrapping fs.ErrNotExist", key, err)
		}
		if ctx.Err() != nil {
			t.Errorf("the context StartKey returned with its error is done: %v", ctx.Err())
		}
		// No key (a dry run): Err and Stop change nothing.
		if err := key.Err(errSync); err != errSync {
			t.Errorf("(*Key)(nil).Err(errSync) = %v; want errSync", err)
		}
		key.Stop()
	})
}
