package install_test

import (
	"errors"
	"testing"
	"time"

	"github.com/airvsx/airvsx/hostlaunch/install"
	"github.com/airvsx/airvsx/index"
)

// TestHostState: what the host records in installed.json: the last
// activation, and an extension disabled with the reason; both survive a
// Load, and Load still checks the tree.
func TestHostState(t *testing.T) {
	opts := options(t)
	installOK(t, opts)
	id := index.ID{Namespace: "ok", Name: "x"}
	when := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	if err := install.MarkActivated(t.Context(), opts.Dir, []index.ID{id, {Namespace: "gone", Name: "y"}}, when, dirOpts(opts)); err != nil {
		t.Fatal(err)
	}
	r := loaded(t, opts).Find(id)
	if !r.LastActivation.Equal(when) || !r.Enabled {
		t.Errorf("after MarkActivated: last %v, enabled %v", r.LastActivation, r.Enabled)
	}
	if err := install.Disable(t.Context(), opts.Dir, id, "its activation crashed the extension host twice in a row", dirOpts(opts)); err != nil {
		t.Fatal(err)
	}
	r = loaded(t, opts).Find(id)
	if r.Enabled || r.Reason != "its activation crashed the extension host twice in a row" {
		t.Errorf("after Disable: enabled %v, reason %q", r.Enabled, r.Reason)
	}
	if err := install.Disable(t.Context(), opts.Dir, index.ID{Namespace: "no", Name: "such"}, "x", dirOpts(opts)); !errors.Is(err, install.ErrNotInstalled) {
		t.Errorf("Disable of an unknown extension = %v; want ErrNotInstalled", err)
	}
}
