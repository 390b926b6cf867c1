package trust

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/airvsx/airvsx/internal/atomicfile"
	"github.com/airvsx/airvsx/internal/strictjson"
)

// ErrState is wrapped by errors of the state directory itself (unreadable,
// damaged, not writable): a verifier cannot run safely without knowing
// what it saw before, so these stop the run rather than count as a
// problem of the registry.
var ErrState = errors.New("state directory")

// StateFormat is the version of state.json.
const StateFormat = 1

// The files of one registry's state directory.
const (
	stateFile     = "state.json"
	stateRootFile = "root.json"
	registriesDir = "registries"
)

// RegistryState is what a verifier recorded about one registry
// (state.json).
type RegistryState struct {
	Format int `json:"format"`
	// Registry is the identity the directory is named after (see
	// Checked.ID).
	Registry string `json:"registry"`
	// Trust is the TUF versions last verified.
	Trust State `json:"trust"`
	// Serial and Digest are the last catalog that verified with its hash
	// chain intact; 0 and "" before the first.
	Serial int64  `json:"catalogSerial"`
	Digest string `json:"catalogDigest"`
	// AnchorKeyID is the TUF key ID of the key the registry was verified
	// with in key mode ("" in root mode), so that a run with another key
	// can name both.
	AnchorKeyID string `json:"anchorKeyID,omitempty"`
	// Revision is the last trusted revision of a registry kept as a
	// signed history (a git commit ID; see store.History): the next
	// revision read must descend from it. "" for other registries.
	Revision string    `json:"revision,omitempty"`
	Updated  time.Time `json:"updated"`
}

// StateDir keeps, per registry, what earlier runs verified: the TUF
// versions, the catalog's serial and digest, and the newest verified root
// (registries/<id>/state.json and root.json). It is what turns a rollback
// that the registry itself cannot show into an error.
type StateDir struct {
	dir string
}

// DefaultStateDir returns the user's state directory for airvsx:
// $XDG_STATE_HOME/airvsx, else ~/.local/state/airvsx.
func DefaultStateDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "airvsx"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrState, err)
	}
	return filepath.Join(home, ".local", "state", "airvsx"), nil
}

// OpenStateDir returns the state directory at dir; it is created by the
// first Save.
func OpenStateDir(dir string) *StateDir { return &StateDir{dir: dir} }

// Path returns the directory.
func (d *StateDir) Path() string { return d.dir }

// RegistryPath returns the directory of the registry with identity id.
func (d *StateDir) RegistryPath(id string) string {
	return filepath.Join(d.dir, registriesDir, id)
}

// Load reads the state of the registry with identity id and its pinned
// root (nil when none was saved). A registry never seen is the zero
// state. A damaged state file is an error wrapping ErrState that names
// it and says how to start over.
func (d *StateDir) Load(id string) (RegistryState, []byte, error) {
	var s RegistryState
	dir := d.RegistryPath(id)
	p := filepath.Join(dir, stateFile)
	b, err := readKeyFileCapped(p, 1<<20)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return s, nil, fmt.Errorf("%w: %w", ErrState, err)
	default:
		if err := strictjson.Unmarshal(b, &s); err != nil || s.Format != StateFormat || s.Registry != id {
			return RegistryState{}, nil, fmt.Errorf("%w: %s is damaged or not for this registry (%v); remove it to start over", ErrState, p, err)
		}
	}
	root, err := readKeyFileCapped(filepath.Join(dir, stateRootFile), MaxRootBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil, nil
	}
	if err != nil {
		return s, nil, fmt.Errorf("%w: %w", ErrState, err)
	}
	return s, root, nil
}

// Save writes s (and root, when not nil) atomically; root.json first, so
// state.json never describes a root that is not there.
func (d *StateDir) Save(s RegistryState, root []byte) error {
	dir := d.RegistryPath(s.Registry)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("%w: %w", ErrState, err)
	}
	if root != nil {
		if err := atomicfile.WriteFile(filepath.Join(dir, stateRootFile), root, 0o600); err != nil {
			return fmt.Errorf("%w: %w", ErrState, err)
		}
	}
	s.Format = StateFormat
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, stateFile), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("%w: %w", ErrState, err)
	}
	return nil
}
