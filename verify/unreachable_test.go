package verify_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/verify"
)

// unreachable is a store that cannot reach its place, as a registry that
// refuses the connection.
type unreachable struct{ *storetest.Mem }

func (unreachable) ReadMetadata(ctx context.Context, name string, max int64) ([]byte, error) {
	return nil, fmt.Errorf("read metadata %s: connect to 127.0.0.1:1: connection refused: %w", name, store.ErrUnreachable)
}

// TestRegistryUnreachable: a place that cannot be reached is an error (no
// verdict, nothing read), not a trust problem whose fix says to copy the
// metadata again.
func TestRegistryUnreachable(t *testing.T) {
	reg := base(t)
	rep, err := verify.Registry(t.Context(), verify.RegistryOptions{Store: unreachable{storetest.NewMem()}, Anchor: trust.Anchor{Root: reg.Root}})
	if !errors.Is(err, store.ErrUnreachable) {
		t.Fatalf("verify of an unreachable place: report %+v, error %v; want ErrUnreachable", rep, err)
	}
}
