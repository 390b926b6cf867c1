package sandbox

import (
	"github.com/airvsx/airvsx/hostlaunch/host"
)

// The sandbox helper is the launcher's own binary run again in new
// namespaces, in two stages:
//
//   - helperArg: the first process of the new PID namespace (its init).
//     It checks the network namespace, builds the private root and
//     starts the second stage in it, then only reaps and relays the exit
//     status;
//   - execArg: the second stage: it applies the rlimits, Landlock and
//     seccomp to itself and execs node (or the brokered program).
//
// Both read the spec from argv[2].
const (
	helperArg = "__airvsx-sandbox-helper"
	execArg   = "__airvsx-sandbox-exec"
)

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
	// DataMB is RLIMIT_DATA in MiB (0: none); CPUSeconds RLIMIT_CPU (0:
	// none).
	DataMB     int `json:"dataMB,omitempty"`
	CPUSeconds int `json:"cpuSeconds,omitempty"`
	// ExtraFDs counts the descriptors from 3 up that the launcher passes
	// to what is execed (the host's IPC channel: 1).
	ExtraFDs int `json:"extraFDs,omitempty"`
	// Cwd is the working directory the launcher chose, set by the init
	// for the second stage.
	Cwd string `json:"cwd,omitempty"`
}

// helperExit is the helper's exit status when it fails before exec; its
// reason is on stderr.
const helperExit = 125
