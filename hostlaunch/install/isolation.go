package install

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/airvsx/airvsx/internal/atomicfile"
	"github.com/airvsx/airvsx/internal/safefile"
	"github.com/airvsx/airvsx/internal/strictjson"
)

// IsolationFile records, in an extensions directory, how the last run
// isolated its extensions.
const IsolationFile = "isolation.json"

// maxIsolationBytes bounds IsolationFile.
const maxIsolationBytes = 64 << 10

// Isolation is how a run isolated the extensions: the kernel sandbox's
// layers, or degraded isolation that an admin chose.
type Isolation struct {
	Time time.Time `json:"time"`
	// Layers describes the sandbox the run used.
	Layers string `json:"layers"`
	// Degraded is set when the run went on without Missing
	// (--insecure-degraded-isolation).
	Degraded bool     `json:"degraded"`
	Missing  []string `json:"missing,omitempty"`
}

// String is the isolation in one line.
func (i Isolation) String() string {
	when := i.Time.UTC().Format(time.RFC3339)
	if i.Degraded {
		return fmt.Sprintf("DEGRADED (--insecure-degraded-isolation) at the run of %s: missing %s", when, strings.Join(i.Missing, "; "))
	}
	return fmt.Sprintf("kernel sandbox at the run of %s: %s", when, i.Layers)
}

// RecordIsolation writes how a run isolated the extensions of dir.
func RecordIsolation(ctx context.Context, dir string, i Isolation) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := strictjson.Marshal(i)
	if err != nil {
		return err
	}
	name := filepath.Join(dir, IsolationFile)
	if err := atomicfile.WriteFile(name, b, 0o644); err != nil {
		return fmt.Errorf("record isolation: %w", err)
	}
	return nil
}

// readIsolation reads the last run's isolation (nil when there was none).
func readIsolation(dir string) (*Isolation, error) {
	name := filepath.Join(dir, IsolationFile)
	b, err := safefile.ReadFile(name, maxIsolationBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var i Isolation
	if err := strictjson.Unmarshal(b, &i); err != nil {
		return nil, fmt.Errorf("%s is damaged: %w (remove it: the next run writes it again)", name, err)
	}
	return &i, nil
}
