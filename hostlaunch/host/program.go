package host

// Running a program the spawn broker allowed: in a process group of its
// own (through the sandbox, the group of the helper that is the init of
// its PID namespace), killed at the deadline, when its resident memory
// goes over the host's limit, or when the host ends.

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// spawner tracks the process groups the broker started, to kill them
// when the host ends.
type spawner struct {
	mu     sync.Mutex
	groups map[int]bool
	tokens map[string]int         // extension NUL token -> process group
	sent   map[int]syscall.Signal // process group -> the last signal spawn/kill sent it
	// streams are the streamed programs' stdins by extension NUL token
	// (nil: reserved while the program starts).
	streams map[string]*stream
	wg      sync.WaitGroup
}

// reserve claims key for a streamed program; false when it is taken.
func (s *spawner) reserve(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.streams == nil {
		s.streams = map[string]*stream{}
	}
	if _, ok := s.streams[key]; ok {
		return false
	}
	s.streams[key] = nil
	return true
}

// release gives back a key reserve claimed for a program that did not
// start.
func (s *spawner) release(key string) { s.removeStream(key) }

// setStream records the stdin of the streamed program key.
func (s *spawner) setStream(key string, st *stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.streams[key] = st
}

// removeStream forgets the streamed program key.
func (s *spawner) removeStream(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.streams, key)
}

// stream is the stdin of the streamed program key, nil when none runs.
func (s *spawner) stream(key string) *stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streams[key]
}

// close kills every running group and waits for their brokers.
func (s *spawner) close() {
	s.mu.Lock()
	for pg := range s.groups {
		syscall.Kill(-pg, syscall.SIGKILL)
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *spawner) add(pg int, key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.groups == nil {
		s.groups, s.tokens, s.sent = map[int]bool{}, map[string]int{}, map[int]syscall.Signal{}
	}
	s.groups[pg] = true
	if key != "" {
		s.tokens[key] = pg
	}
}

func (s *spawner) remove(pg int, key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.groups, pg)
	delete(s.sent, pg)
	if key != "" && s.tokens[key] == pg {
		delete(s.tokens, key)
	}
}

// signal sends sig to the group of the run key, if it runs.
func (s *spawner) signal(key string, sig syscall.Signal) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	pg, ok := s.tokens[key]
	if !ok || syscall.Kill(-pg, sig) != nil {
		return false
	}
	s.sent[pg] = sig
	return true
}

// sentTo is the last signal spawn/kill sent the group pg (0: none).
func (s *spawner) sentTo(pg int) syscall.Signal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent[pg]
}

// runProgram runs s in a process group of its own, killed at the
// deadline, when it and its descendants hold more resident memory than
// the host may, or when the host ends; n is what it wrote in all; key
// names it for spawn/kill ("" for none).
func (h *Host) runProgram(s SpawnSpec, input []byte, timeout time.Duration, key string) (_ *spawnResult, n int64, _ error) {
	h.spawns.wg.Add(1)
	defer h.spawns.wg.Done()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	spawn := h.opts.Spawn
	if spawn == nil {
		spawn = DirectSpawn
	}
	cmd, err := spawn(ctx, s)
	if err != nil {
		return nil, 0, err
	}
	var stdout, stderr capped
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, &stdout, &stderr // no input: /dev/null
	if len(input) > 0 {
		cmd.Stdin = bytes.NewReader(input)
	}
	ownGroup(cmd)
	// A process that left the group but holds the pipes does not keep
	// the broker waiting.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	pg := cmd.Process.Pid
	h.spawns.add(pg, key)
	defer h.spawns.remove(pg, key)
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	over, stop := make(chan int64, 1), make(chan struct{})
	defer close(stop)
	go watchProgram(pg, int64(h.opts.MemoryMB)<<20, over, stop)
	timedOut, memory := false, int64(0)
	select {
	case err = <-waited:
	case <-ctx.Done():
		timedOut = true
		syscall.Kill(-pg, syscall.SIGKILL)
		err = <-waited
	case memory = <-over:
		syscall.Kill(-pg, syscall.SIGKILL)
		err = <-waited
	case <-h.done:
		syscall.Kill(-pg, syscall.SIGKILL)
		err = <-waited
	}
	// What the program left running in its group goes with it.
	syscall.Kill(-pg, syscall.SIGKILL)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) && !errors.Is(err, exec.ErrWaitDelay) {
		return nil, stdout.n + stderr.n, err
	}
	res := &spawnResult{TimedOut: timedOut, Truncated: stdout.cut || stderr.cut,
		Stdout: base64.StdEncoding.EncodeToString(stdout.b.Bytes()), Stderr: base64.StdEncoding.EncodeToString(stderr.b.Bytes())}
	if memory > 0 {
		res.memory = fmt.Sprintf("killed: resident memory %d MiB, over the limit of %d MiB", memory>>20, h.opts.MemoryMB)
	}
	code, sig := exitOf(cmd.ProcessState, h.spawns.sentTo(pg))
	if sig != 0 {
		res.Signal = signalName(sig)
	} else {
		res.Code = &code
	}
	return res, stdout.n + stderr.n, nil
}

// exitOf is how a program ended: its exit code, or the signal that
// killed it. In the sandbox the launcher's process is the init of the
// program's PID namespace, which cannot die of a signal sent from inside
// and reports a program killed by signal N as exit code 128+N: when that
// is the signal spawn/kill sent, it is reported as the signal.
func exitOf(ps *os.ProcessState, sent syscall.Signal) (code int, sig syscall.Signal) {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 0, ws.Signal()
	}
	code = ps.ExitCode()
	if sent != 0 && code == 128+int(sent) {
		return 0, sent
	}
	return code, 0
}

// watchProgram sends on over (buffered) the resident memory of process
// group leader pg and its descendants once it is over limit, checking
// every memoryPoll until stop is closed.
func watchProgram(pg int, limit int64, over chan<- int64, stop <-chan struct{}) {
	t := time.NewTicker(memoryPoll)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		if rss, err := treeResident(pg); err == nil && rss > limit {
			over <- rss
			return
		}
	}
}

// capped keeps the first maxSpawnOutput bytes written to it and counts
// the rest.
type capped struct {
	b   bytes.Buffer
	n   int64
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	if room := maxSpawnOutput - c.b.Len(); room < len(p) {
		c.cut = true
		c.b.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.b.Write(p)
}

var _ io.Writer = (*capped)(nil)

// signalName is node's name of s ("SIGKILL").
func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return fmt.Sprintf("SIG%d", int(s))
}
