package install

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/Masterminds/semver/v3"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/index/vsix"
	"github.com/airvsx/airvsx/policies"
)

// Options configure an install. Dir is required; every other zero value
// works.
type Options struct {
	// Dir is the extensions directory. Required. It is created if missing
	// (its parent must exist).
	Dir string
	// Policy grants capabilities (its capabilities rules); effective =
	// declared ∩ granted. Default nil: nothing is granted.
	Policy *policies.Policy
	// AllowPartialActivation installs an extension whose activation events
	// include some the host cannot honour; they are recorded as ignored.
	// Default false: such an extension is refused.
	AllowPartialActivation bool
	// PreRelease lets a registry install without a version pick a
	// pre-release. Default false: the newest release.
	PreRelease bool
	// APIVersion is the VS Code API version engines.vscode must accept.
	// Default "": APIVersion.
	APIVersion string
	// Platform is this machine's target platform. Default "":
	// index.HostPlatform().
	Platform index.Platform
	// Archive limits the archive rules (see vsix.Options). Default: vsix's
	// defaults.
	Archive vsix.Options
	// Now is the clock of install times and quarantine names. Default nil:
	// time.Now.
	Now func() time.Time
	// StateDir is the launcher's state directory, which holds the key
	// that seals the records of installed.json (SealKeyFile); the install
	// makes the key when it is missing. It is not Registry.State, which
	// verify shares: run and list read the key from the default place.
	// Default "": trust.DefaultStateDir().
	StateDir string
	// Logger receives warnings (unknown contributions, ignored activation
	// events, denied capabilities, records found unsealed, what was left
	// by an interrupted install or uninstall) and debug records. Default
	// nil: discard.
	Logger *slog.Logger
}

// DirOptions configure what reads or changes an extensions directory
// besides an install: Load, Tidy, Uninstall, Disable and MarkActivated.
// The zero value works.
type DirOptions struct {
	// StateDir is the launcher's state directory, which holds the key
	// that seals the records of installed.json (SealKeyFile). Load only
	// reads the key (without one no record is trusted); Uninstall, Disable
	// and MarkActivated make it when it is missing; Tidy does not use it.
	// Default "": trust.DefaultStateDir(), $XDG_STATE_HOME/airvsx or
	// ~/.local/state/airvsx.
	StateDir string
	// Logger receives warnings: records of installed.json found unsealed
	// (by the writers; Load returns them as Loaded.Warnings), folders put
	// back and staging folders removed after an interrupted install or
	// uninstall. Default nil: discard.
	Logger *slog.Logger
}

// logger returns o.Logger, or one that discards.
func (o DirOptions) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// Registry is where a registry install reads from.
type Registry struct {
	// Store is the registry, opened read-only. Required.
	Store store.Store
	// Place names the registry as the user gave it; it is recorded as the
	// source. Required.
	Place string
	// Anchor is what the operator trusts (--root or --key), as for verify.
	// Required.
	Anchor trust.Anchor
	// State is the state directory verify uses: install reads it (a
	// rollback is refused) and records the verified chain as verify does.
	// Default nil: no state is read or written.
	State *trust.StateDir
}

// withDefaults fills in the defaults and checks the options.
func (o Options) withDefaults() (Options, *semver.Version, error) {
	if o.Dir == "" {
		return o, nil, errors.New("install: no extensions directory")
	}
	if o.APIVersion == "" {
		o.APIVersion = APIVersion
	}
	api, err := index.ParseVersion(o.APIVersion)
	if err != nil {
		return o, nil, fmt.Errorf("install: API version: %w", err)
	}
	if o.Platform == "" {
		o.Platform = index.HostPlatform()
	}
	if !o.Platform.Valid() {
		return o, nil, fmt.Errorf("install: unknown platform %q", o.Platform)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o, api, nil
}

// Result is what an install did.
type Result struct {
	// Installed lists the records written, in install order: dependencies
	// and pack members before what needs them.
	Installed []Record `json:"installed"`
	// Kept lists extensions that were already installed and left as they
	// were (a dependency present in any version, or the same package
	// again).
	Kept []Record `json:"kept"`
	// Updated lists extensions that were already installed and kept, whose
	// grants the policy given changed (its capabilities rules grant them
	// other capabilities, programs or hosts than recorded): their records
	// now hold the new grants.
	Updated []Record `json:"grantsUpdated"`
	// ControlOverrides lists the extensions installed although a control
	// list names them, because the policy's control.allow overrides it.
	ControlOverrides []ControlOverride `json:"controlOverrides,omitempty"`
}
