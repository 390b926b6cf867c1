package sandbox

import (
	"github.com/airvsx/airvsx/hostlaunch/host"
)

// helperArg is argv[1] of the sandbox helper: the launcher's binary run
// again as /proc/self/exe helperArg SPEC-JSON.
const helperArg = "__airvsx-sandbox-helper"

// helperSpec is what the helper gets: exactly one of Host and Spawn.
type helperSpec struct {
	Host  *host.Spec      `json:"host,omitempty"`
	Spawn *host.SpawnSpec `json:"spawn,omitempty"`
	// Degraded lists the layers to skip (the machine lacks them and
	// degraded isolation was allowed).
	SkipNamespaces bool `json:"skipNamespaces,omitempty"`
	SkipLandlock   bool `json:"skipLandlock,omitempty"`
	SkipSeccomp    bool `json:"skipSeccomp,omitempty"`
	LandlockABI    int  `json:"landlockABI,omitempty"`
	// NoFile is RLIMIT_NOFILE.
	NoFile uint64 `json:"noFile,omitempty"`
}
