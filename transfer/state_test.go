package transfer_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/transfer"
)

// fullDisk is an in-memory store whose metadata writes fail as on a file
// system that filled up: the copy stops before its commit point
// (timestamp.json).
type fullDisk struct{ *storetest.Mem }

func (fullDisk) WriteMetadata(ctx context.Context, name string, data []byte) error {
	return fmt.Errorf("write metadata %s: %w", name, syscall.ENOSPC)
}

// TestCopyFailedRecordsNothing: a copy of serial 2 over a destination of
// serial 1 that stops before the destination is committed (no space, found
// by the plan or by the first metadata write) records nothing in the state
// directory, so the untouched destination still verifies from the same
// state, not as a rollback; a copy that completes records serial 2.
func TestCopyFailedRecordsNothing(t *testing.T) {
	reg := demoreg.Get(t)
	for _, tc := range []struct {
		name string
		// fail makes the options and destination of a copy that fails.
		fail    func(o *transfer.Options, dst *storetest.Mem) store.Store
		wantErr error
	}{
		{"no space in the plan", func(o *transfer.Options, dst *storetest.Mem) store.Store {
			o.FreeSpace = func() (int64, int64, error) { return 4096, 4096, nil }
			return dst
		}, transfer.ErrNoSpace},
		{"no space while writing", func(o *transfer.Options, dst *storetest.Mem) store.Store {
			return fullDisk{dst}
		}, syscall.ENOSPC},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := options(reg)
			o.State = trust.OpenStateDir(filepath.Join(t.TempDir(), "state"))
			dst := storetest.NewMem()
			// The destination holds serial 1, recorded.
			if _, err := transfer.Copy(t.Context(), readOnly(t, reg.Dir1), dst, o); err != nil {
				t.Fatalf("Copy of serial 1: %v", err)
			}
			failing := o
			_, err := transfer.Copy(t.Context(), readOnly(t, reg.Dir), tc.fail(&failing, dst), failing)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Copy of serial 2 = %v; want %v", err, tc.wantErr)
			}
			cat, _, err := trust.ReadVerified(t.Context(), dst, o.Anchor, trust.CheckOptions{State: o.State, Now: now})
			if err != nil {
				t.Fatalf("the destination after the failed copy: %v; want serial 1 to verify from the state", err)
			}
			if cat.Serial != 1 {
				t.Errorf("destination serial %d; want 1", cat.Serial)
			}

			// The copy that completes records serial 2.
			if _, err := transfer.Copy(t.Context(), readOnly(t, reg.Dir), dst, o); err != nil {
				t.Fatalf("Copy of serial 2: %v", err)
			}
			ch, err := trust.Check(t.Context(), dst, o.Anchor, trust.CheckOptions{State: o.State, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			if ch.Previous.Serial != 2 {
				t.Errorf("recorded serial %d after the copy; want 2", ch.Previous.Serial)
			}
		})
	}
}
