package host

// The spawn broker: "spawn/run" starts one of the programs the asking
// extension's policy lists, with an environment built from nothing, in
// its own process group, and kills the group at the deadline or when the
// host ends.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Limits of one brokered spawn.
const (
	// DefaultSpawnTimeout is a spawn's deadline when the extension gives
	// none; MaxSpawnTimeout the longest it may ask for.
	DefaultSpawnTimeout = 30 * time.Second
	MaxSpawnTimeout     = 5 * time.Minute
	// maxSpawnOutput caps stdout and stderr, each: 1 MiB.
	maxSpawnOutput = 1 << 20
	// maxSpawnInput caps what is written to the program's stdin.
	maxSpawnInput = 4 << 20
)

// spawnRequest is the params of "spawn/run".
type spawnRequest struct {
	brokerRequest
	File      string   `json:"file"`
	Args      []string `json:"args"`
	Cwd       string   `json:"cwd"`
	TimeoutMs int64    `json:"timeoutMs"`
	Input     string   `json:"input"` // base64
	// Token names the run for "spawn/kill" (ChildProcess.kill).
	Token string `json:"token"`
}

// killRequest is the params of "spawn/kill": the run of Extension named
// Token gets Signal (default SIGTERM).
type killRequest struct {
	brokerRequest
	Token  string `json:"token"`
	Signal string `json:"signal"`
}

// spawnResult is the answer: Code is nil when the program did not exit
// on its own (Signal names the signal); Stdout and Stderr are base64,
// each at most 1 MiB (Truncated says something was cut).
type spawnResult struct {
	Code      *int   `json:"code"`
	Signal    string `json:"signal,omitempty"`
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	Truncated bool   `json:"truncated"`
	TimedOut  bool   `json:"timedOut"`
	// memory says the program was killed for its memory (for the audit).
	memory string
}

// serveSpawnKill answers "spawn/kill": the extension signals a run of its
// own (its group), nothing else.
func (h *Host) serveSpawnKill(raw json.RawMessage, _ *ticket) (any, error) {
	var req killRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, fmt.Errorf("spawn: bad request: %w", err)
	}
	e, err := h.extension(req.Extension, "spawn")
	if err != nil {
		return nil, err
	}
	sig := map[string]syscall.Signal{"": syscall.SIGTERM, "SIGTERM": syscall.SIGTERM, "SIGKILL": syscall.SIGKILL, "SIGINT": syscall.SIGINT, "SIGHUP": syscall.SIGHUP}[req.Signal]
	if sig == 0 || req.Token == "" {
		return nil, fmt.Errorf("spawn: kill: unsupported signal %q", req.Signal)
	}
	return map[string]bool{"killed": h.spawns.signal(e.ID+"\x00"+req.Token, sig)}, nil
}

// serveSpawn runs one "spawn/run" request (its output is held in the
// ticket the flow control gave it).
func (h *Host) serveSpawn(raw json.RawMessage, _ *ticket) (any, error) {
	var req spawnRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, fmt.Errorf("spawn: bad request: %w", err)
	}
	a := Audit{Extension: req.Extension, Kind: "spawn", Details: AuditDetails{Program: req.File, Args: req.Args}}
	e, deny, err := h.brokered(&a, "spawn", req.Cause)
	if err != nil {
		return deny(err)
	}
	prog, err := resolveProgram(e, req.File)
	if prog != "" {
		a.Details.Program = prog
	}
	if err != nil {
		return deny(err)
	}
	dir, err := h.spawnDir(e, req.Cwd)
	if err != nil {
		return deny(err)
	}
	a.Details.Dir = dir
	input, err := base64.StdEncoding.DecodeString(req.Input)
	if err != nil || len(input) > maxSpawnInput {
		return deny(denyf("spawn: the input to %s is not base64 of at most %d bytes", prog, maxSpawnInput))
	}
	timeout := DefaultSpawnTimeout
	if req.TimeoutMs > 0 {
		timeout = min(time.Duration(req.TimeoutMs)*time.Millisecond, MaxSpawnTimeout)
	}
	a.Allowed = true
	key := ""
	if req.Token != "" {
		key = e.ID + "\x00" + req.Token
	}
	storage := storageOf(h.opts.StorageDir, e.ID)
	spec := SpawnSpec{Program: prog, Args: req.Args, Env: spawnEnv(storage), Dir: dir, Workspace: h.opts.Workspace, ExtensionDir: e.Path,
		Storage: storage, ReadOnly: protectedPaths(h.opts.Protected), MemoryMB: h.opts.MemoryMB, CPUSeconds: int(timeout/time.Second) + 1}
	res, n, err := h.runProgram(spec, input, timeout, key)
	a.Details.Bytes = n
	if err != nil {
		a.Details.Reason = err.Error()
		h.audit(a, "spawn", req.Cause)
		return nil, fmt.Errorf("spawn %s: %w", prog, err)
	}
	a.Details.ExitCode, a.Details.Signal, a.Details.TimedOut, a.Details.Reason = res.Code, res.Signal, res.TimedOut, res.memory
	h.audit(a, "spawn", req.Cause)
	return res, nil
}

// LookupProgram returns the program a bare name (no "/") given to spawn
// runs: the first executable file of that name on the spawn broker's
// PATH, /usr/local/bin:/usr/bin:/bin; "" when there is none.
func LookupProgram(name string) string {
	for _, d := range filepath.SplitList(safePath) {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// resolveProgram finds file (a bare name on the host's PATH, else an
// absolute path) and allows it when it is, symbolic links resolved, one
// of e's Programs, resolved the same way. A refused program found on
// the PATH is returned with the refusal.
func resolveProgram(e *Extension, file string) (string, error) {
	listed := fmt.Sprintf("[%s]", strings.Join(e.Programs, " "))
	change := fmt.Sprintf("add it to programs in the policy's capabilities rule that grants %s spawn", e.ID)
	var prog string
	switch {
	case file == "":
		return "", denyf("spawn: no program named")
	case !strings.Contains(file, "/"):
		if prog = LookupProgram(file); prog == "" {
			return "", denyf("spawn: %s may not run %s: no such program on %s; the programs it may run are %s", e.ID, file, safePath, listed)
		}
	case !filepath.IsAbs(file):
		return "", denyf("spawn: %s may not run %s: a program is named by an absolute path or a bare name on %s", e.ID, file, safePath)
	default:
		prog = filepath.Clean(file)
	}
	real, err := filepath.EvalSymlinks(prog)
	if err == nil {
		for _, p := range e.Programs {
			if r, err := filepath.EvalSymlinks(p); err == nil && r == real {
				return prog, nil
			}
		}
	}
	if len(e.Programs) == 0 {
		return prog, denyf("spawn: %s may not run %s: its policy lists no programs; %s", e.ID, prog, change)
	}
	return prog, denyf("spawn: %s may not run %s: it is not among the programs its policy lists, %s; %s", e.ID, prog, listed, change)
}

// spawnDir is the working directory of a spawn: cwd when it is inside a
// workspace folder or the extension's storage, by default the first
// workspace folder, else the extension's storage.
func (h *Host) spawnDir(e *Extension, cwd string) (string, error) {
	storage := storageOf(h.opts.StorageDir, e.ID)
	if cwd == "" {
		if len(h.opts.Workspace) > 0 {
			return h.opts.Workspace[0], nil
		}
		return storage, os.MkdirAll(storage, 0o700)
	}
	if !filepath.IsAbs(cwd) {
		return "", denyf("spawn: working directory %q is not an absolute path", cwd)
	}
	real, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return "", fmt.Errorf("spawn: working directory: %w", err)
	}
	for _, root := range append(append([]string{}, h.opts.Workspace...), storage) {
		r, err := filepath.EvalSymlinks(root)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(r, real); err == nil && filepath.IsLocal(rel) {
			return real, nil
		}
	}
	return "", denyf("spawn: working directory %s is outside the workspace folders and the extension's storage: refused", cwd)
}

// spawnEnv is a spawned program's environment, built from nothing: its
// home is the asking extension's storage.
func spawnEnv(storage string) []string {
	return []string{"PATH=" + safePath, "HOME=" + storage, "TMPDIR=" + filepath.Join(storage, "tmp"), "LANG=C.UTF-8"}
}
