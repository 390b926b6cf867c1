package sandbox

import (
	"github.com/airvsx/airvsx/hostlaunch/host"
)

// helperArg is argv[1] of the sandbox helper: the launcher's binary run
// again as /proc/self/exe helperArg SPEC-JSON.
const helperArg = "__airvsx-sandbox-helper"

// helperSpec is what the helper gets: exactly one of Host, Spawn and
// Probe.
type helperSpec struct {
	Host  *host.Spec      `json:"host,omitempty"`
	Spawn *host.SpawnSpec `json:"spawn,omitempty"`
	// Probe: check the namespaces and exit 0 (New's probe).
	Probe bool `json:"probe,omitempty"`
	// Exec is what the helper execs: the program and its whole argv.
	Exec []string `json:"exec"`
	// Skip* are layers the machine lacks (degraded isolation allowed).
	SkipNamespaces bool `json:"skipNamespaces,omitempty"`
	SkipLandlock   bool `json:"skipLandlock,omitempty"`
	SkipSeccomp    bool `json:"skipSeccomp,omitempty"`
	// LandlockABI is the kernel's Landlock ABI version.
	LandlockABI int `json:"landlockABI,omitempty"`
	// DataMB is RLIMIT_DATA in MiB (0: none).
	DataMB int `json:"dataMB,omitempty"`
}

// helperExit is the helper's exit status when it fails before exec; its
// reason is on stderr.
const helperExit = 125
