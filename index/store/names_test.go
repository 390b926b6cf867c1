package store_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index/store"
)

// TestCheckRepoWindowsReserved: CheckRepo refuses every repository part
// index.WindowsReserved calls a device name, the ones only index/vsix
// refused before the two lists were merged (CLOCK$) included.
func TestCheckRepoWindowsReserved(t *testing.T) {
	tests := []struct {
		repo string
		ok   bool
	}{
		{"con/x", false},
		{"pub/nul", false},
		{"pub/conin$", false},
		{"conout$/x", false},
		{"pub/com0", false},
		{"lpt9/x", false},
		{"clock$/x", false}, // was accepted
		{"pub/clock$", false},

		{"pub/console", true},
		{"pub/com10", true},
		{"clock/x", true},
		{"pub/x$", true},
	}
	for _, tt := range tests {
		err := store.CheckRepo(tt.repo)
		switch {
		case tt.ok && err != nil:
			t.Errorf("CheckRepo(%q) = %v; want nil", tt.repo, err)
		case !tt.ok && err == nil:
			t.Errorf("CheckRepo(%q) = nil; want an error", tt.repo)
		case !tt.ok && (!errors.Is(err, store.ErrInvalidName) || !strings.Contains(err.Error(), "Windows reserved device name")):
			t.Errorf("CheckRepo(%q) = %v; want a Windows reserved device name error wrapping ErrInvalidName", tt.repo, err)
		}
	}
}
