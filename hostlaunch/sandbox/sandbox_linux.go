//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/airvsx/airvsx/hostlaunch/host"
)

// minLandlockABI is the oldest Landlock ABI the sandbox accepts: 4 is the
// first that restricts TCP bind and connect.
const minLandlockABI = 4

// New probes the kernel's layers and returns a Sandbox, or an error
// wrapping ErrMissingLayer that names what is missing.
func New(opts Options) (*Sandbox, error) {
	return newWith(opts, probe())
}

// newWith is New on layers already probed.
func newWith(opts Options, layers Layers) (*Sandbox, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Sandbox{opts: opts, log: log, layers: layers, nodes: map[string][2]int{}}
	if m := s.layers.Missing(); len(m) > 0 {
		if !opts.AllowDegraded {
			return nil, fmt.Errorf("%w: %s", ErrMissingLayer, strings.Join(m, "; "))
		}
		log.Warn("running extensions with DEGRADED isolation (--insecure-degraded-isolation)", "missing", strings.Join(m, "; "))
	}
	return s, nil
}

// probe finds which layers this kernel offers.
func probe() Layers {
	var l Layers
	abi, err := llsys.LandlockGetABIVersion()
	switch {
	case err != nil:
		l.LandlockErr = fmt.Errorf("not available: %w", err)
	case abi < minLandlockABI:
		l.LandlockErr = fmt.Errorf("ABI %d, older than %d (no TCP rules)", abi, minLandlockABI)
	default:
		l.LandlockABI = abi
	}
	l.Seccomp = seccompAvailable()
	l.Namespaces = probeNamespaces()
	return l
}

// probeNamespaces starts the helper in its namespaces and waits for it to
// report that it has no network but a loopback and is the init of its PID
// namespace.
func probeNamespaces() error {
	cmd, err := helperCommand(helperSpec{Probe: true}, nil, "/")
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return errors.New(msg)
		}
		return err
	}
	return nil
}

// helperCommand is the helper process for hs, in new user, network,
// mount, PID, IPC and UTS namespaces (unless hs skips them). The helper
// is this binary: Helper in its main selects the mode.
func helperCommand(hs helperSpec, env []string, dir string) (*exec.Cmd, error) {
	b, err := json.Marshal(hs)
	if err != nil {
		return nil, fmt.Errorf("sandbox helper: %w", err)
	}
	cmd := exec.Command("/proc/self/exe", helperArg, string(b))
	cmd.Env = env
	cmd.Dir = dir
	attr := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if !hs.SkipNamespaces {
		// Not root inside: uid and gid 65534, mapped to the launcher's.
		attr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: insideID, HostID: os.Getuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: insideID, HostID: os.Getgid(), Size: 1}}
		attr.GidMappingsEnableSetgroups = false
		// The helper runs as uid 65534, so execve would drop the
		// capabilities the new namespace gave it; it keeps CAP_SYS_ADMIN
		// (over its own namespaces only) as an ambient capability to
		// remount, and clears it before it execs.
		attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
	}
	cmd.SysProcAttr = attr
	return cmd, nil
}

// insideID is the uid and gid the sandboxed process has in its user
// namespace (nobody), mapped to the launcher's own.
const insideID = 65534

// command builds the helper process for a host or a brokered program.
func (s *Sandbox) command(_ context.Context, hs helperSpec) (*exec.Cmd, error) {
	hs.SkipNamespaces = s.layers.Namespaces != nil
	hs.SkipLandlock = s.layers.LandlockErr != nil
	hs.SkipSeccomp = s.layers.Seccomp != nil
	hs.LandlockABI = s.layers.LandlockABI
	var env []string
	var dir string
	switch {
	case hs.Host != nil:
		spec := hs.Host
		args := []string{spec.Node}
		if !spec.NoNodePermission {
			flags, err := s.permissionFlags(spec)
			if err != nil {
				return nil, err
			}
			args = append(args, flags...)
		}
		hs.Exec = append(args, spec.Args...)
		hs.DataMB = spec.MemoryMB
		hs.ExtraFDs = 1 // the IPC channel
		env, dir = spec.Env, spec.Dir
	case hs.Spawn != nil:
		hs.Exec = append([]string{hs.Spawn.Program}, hs.Spawn.Args...)
		hs.DataMB, hs.CPUSeconds = hs.Spawn.MemoryMB, hs.Spawn.CPUSeconds
		env, dir = hs.Spawn.Env, hs.Spawn.Dir
	}
	return helperCommand(hs, env, dir)
}

// permissionFlags are node's permission-model flags for a host: read its
// scripts, the extensions, the workspace and the storage; write the
// workspace and the storage; nothing else (no child processes, workers,
// addons or network).
func (s *Sandbox) permissionFlags(spec *host.Spec) ([]string, error) {
	v, err := s.nodeVersion(spec.Node)
	if err != nil {
		return nil, err
	}
	enable := "--permission"
	if v[0] < 22 {
		enable = "--experimental-permission"
	}
	flags := []string{enable}
	if v[0] > 20 || v[1] >= 11 {
		// Node 20 warns that the model is experimental on every start.
		flags = append(flags, "--disable-warning=ExperimentalWarning")
	}
	read := append(append([]string{spec.HostDir}, spec.ExtensionDirs...), spec.Workspace...)
	write := append(slices.Clone(spec.Storage), spec.Workspace...)
	for _, p := range append(read, spec.Storage...) {
		flags = append(flags, "--allow-fs-read="+p)
	}
	for _, p := range write {
		flags = append(flags, "--allow-fs-write="+p)
	}
	return flags, nil
}

// nodeVersion is node's major and minor version, asked once per path.
func (s *Sandbox) nodeVersion(node string) ([2]int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.nodes[node]; ok {
		return v, nil
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return [2]int{}, fmt.Errorf("%s --version: %w", node, err)
	}
	var v [2]int
	parts := strings.SplitN(strings.TrimPrefix(strings.TrimSpace(string(out)), "v"), ".", 3)
	for i := range v {
		if i >= len(parts) {
			return v, fmt.Errorf("%s --version: unexpected %q", node, out)
		}
		if v[i], err = strconv.Atoi(parts[i]); err != nil {
			return v, fmt.Errorf("%s --version: unexpected %q", node, out)
		}
	}
	s.nodes[node] = v
	return v, nil
}
