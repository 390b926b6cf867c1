package host

// Streamed spawns: what a language server needs. "spawn/start" starts a
// program as "spawn/run" does (the same policy check, working directory,
// environment built from nothing, sandbox, process group, memory watch
// and audit), but its standard streams stay open for its whole life:
//
//   - host -> launcher "spawn/start" {extension, cause, file, args, cwd,
//     timeoutMs, token}: answered {} once the program runs, or with the
//     refusal (-32002, ERR_AIRVSX_DENIED in the host) or, past the
//     streams one host may run at once, -32003 (ERR_AIRVSX_BUSY).
//   - launcher -> host "spawn/data" {token, stream, data}: a request, one
//     chunk (at most 64 KiB, base64) of "stdout" or "stderr". The host
//     answers when it wants more; until then the launcher reads no more
//     of that pipe, so a slow reader makes the program block on its
//     write, as a pipe does, and the launcher holds at most one chunk of
//     each stream.
//   - launcher -> host "spawn/exit" {token, code, signal, timedOut}: a
//     notification, once the program has ended and all its output was
//     answered for (code is null when a signal ended it).
//   - host -> launcher "spawn/write" {extension, token, data}: data
//     (base64) written to the program's stdin, answered once written
//     (the writer's back-pressure); "spawn/end" {extension, token} closes
//     its stdin; "spawn/kill" signals its group, as for spawn/run.
//
// A token names the program within its host for the extension that
// started it: write, end and kill from another extension find nothing.
// A stream has no deadline unless the extension gives one (timeoutMs);
// it is killed with its group when the host ends or closes.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// streamChunk is the most a spawn/data notification carries: 64 KiB.
const streamChunk = 64 << 10

// startRequest is the params of "spawn/start".
type startRequest struct {
	brokerRequest
	File      string   `json:"file"`
	Args      []string `json:"args"`
	Cwd       string   `json:"cwd"`
	TimeoutMs int64    `json:"timeoutMs"`
	Token     string   `json:"token"`
}

// streamRequest is the params of "spawn/write" (Data, base64) and
// "spawn/end".
type streamRequest struct {
	brokerRequest
	Token string `json:"token"`
	Data  string `json:"data"`
}

// stream is a running streamed program's stdin.
type stream struct {
	mu    sync.Mutex // one write at a time, in the order they come
	stdin *os.File
}

// dataParams and exitParams are what the launcher sends the host.
type dataParams struct {
	Token  string `json:"token"`
	Stream string `json:"stream"`
	Data   string `json:"data"`
}

type exitParams struct {
	Token    string `json:"token"`
	Code     *int   `json:"code"`
	Signal   string `json:"signal,omitempty"`
	TimedOut bool   `json:"timedOut,omitempty"`
}

// serveStart answers "spawn/start" id: a refusal, or {} once the program
// runs; then it serves the program until it ends, holding t (the flow
// control's count of the streams running) all along.
func (h *Host) serveStart(id int64, raw json.RawMessage, _ *ticket) {
	fail := func(err error) { h.reply(id, nil, rpcErrorOf(err), "spawn/start") }
	var req startRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		fail(fmt.Errorf("spawn: bad request: %w", err))
		return
	}
	a := Audit{Extension: req.Extension, Kind: "spawn", Details: AuditDetails{Program: req.File, Args: req.Args}}
	e, deny, err := h.brokered(&a, "spawn", req.Cause)
	if err != nil {
		deny(err)
		fail(err)
		return
	}
	refuse := func(err error) { deny(err); fail(err) }
	prog, err := resolveProgram(e, req.File)
	if prog != "" {
		a.Details.Program = prog
	}
	if err != nil {
		refuse(err)
		return
	}
	dir, err := h.spawnDir(e, req.Cwd)
	if err != nil {
		refuse(err)
		return
	}
	a.Details.Dir = dir
	if req.Token == "" || len(req.Token) > maxEventField {
		refuse(denyf("spawn: a stream needs a token of at most %d bytes", maxEventField))
		return
	}
	key := e.ID + "\x00" + req.Token
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cpu := 0
	if req.TimeoutMs > 0 {
		timeout := time.Duration(req.TimeoutMs) * time.Millisecond
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
		cpu = int(timeout/time.Second) + 1
	}
	storage := storageOf(h.opts.StorageDir, e.ID)
	spec := SpawnSpec{Program: prog, Args: req.Args, Env: spawnEnv(storage), Dir: dir, Workspace: h.opts.Workspace, ExtensionDir: e.Path,
		Storage: storage, ReadOnly: protectedPaths(h.opts.Protected), MemoryMB: h.opts.MemoryMB, CPUSeconds: cpu}
	p, err := h.startStream(ctx, spec, key)
	if err != nil {
		var de *deniedError
		if errors.As(err, &de) {
			refuse(err)
			return
		}
		a.Details.Reason = err.Error()
		h.audit(a, "spawn", req.Cause)
		fail(fmt.Errorf("spawn %s: %w", prog, err))
		return
	}
	h.reply(id, struct{}{}, nil, "spawn/start")
	res, n := h.serveStream(ctx, p, req.Token)
	a.Allowed = true
	a.Details.Bytes = n
	a.Details.ExitCode, a.Details.Signal, a.Details.TimedOut, a.Details.Reason = res.Code, res.Signal, res.TimedOut, res.memory
	h.audit(a, "spawn", req.Cause)
}

// running is a streamed program the broker started.
type running struct {
	cmd            *exec.Cmd
	key            string
	pg             int
	stdout, stderr *os.File // the launcher's ends of the pipes
	in             *stream
}

// startStream starts s with its standard streams on pipes, in a process
// group of its own, registered under key (which must be free) for
// spawn/kill, spawn/write and spawn/end.
func (h *Host) startStream(ctx context.Context, s SpawnSpec, key string) (_ *running, err error) {
	spawn := h.opts.Spawn
	if spawn == nil {
		spawn = DirectSpawn
	}
	cmd, err := spawn(ctx, s)
	if err != nil {
		return nil, err
	}
	var child, parent [3]*os.File
	defer func() {
		for _, f := range child {
			if f != nil {
				f.Close()
			}
		}
		if err != nil {
			for _, f := range parent {
				if f != nil {
					f.Close()
				}
			}
		}
	}()
	for i := range 3 {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		if i == 0 {
			child[i], parent[i] = r, w
		} else {
			child[i], parent[i] = w, r
		}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = child[0], child[1], child[2]
	ownGroup(cmd)
	cmd.WaitDelay = time.Second
	if !h.spawns.reserve(key) {
		return nil, denyf("spawn: the token names a program already")
	}
	if err := cmd.Start(); err != nil {
		h.spawns.release(key)
		return nil, err
	}
	p := &running{cmd: cmd, key: key, pg: cmd.Process.Pid, stdout: parent[1], stderr: parent[2], in: &stream{stdin: parent[0]}}
	h.spawns.wg.Add(1)
	h.spawns.add(p.pg, key)
	h.spawns.setStream(key, p.in)
	return p, nil
}

// serveStream pumps p's output to the host until the program has ended
// and its output is all answered for, then tells the host how it ended;
// n is what the program wrote in all. It kills the group at ctx's end
// (the deadline), when it holds more resident memory than the host may,
// or when the host ends.
func (h *Host) serveStream(ctx context.Context, p *running, token string) (res *spawnResult, n int64) {
	defer h.spawns.wg.Done()
	defer h.spawns.remove(p.pg, p.key)
	defer h.spawns.removeStream(p.key)
	defer p.in.stdin.Close()
	var wrote [2]int64
	var pumps sync.WaitGroup
	for i, f := range []*os.File{p.stdout, p.stderr} {
		pumps.Add(1)
		go func() {
			defer pumps.Done()
			defer f.Close()
			wrote[i] = h.pump(f, token, [...]string{"stdout", "stderr"}[i])
		}()
	}
	waited := make(chan error, 1)
	go func() { waited <- p.cmd.Wait() }()
	over, stop := make(chan int64, 1), make(chan struct{})
	go watchProgram(p.pg, int64(h.opts.MemoryMB)<<20, over, stop)
	timedOut, memory := false, int64(0)
	var err error
	select {
	case err = <-waited:
	case <-ctx.Done():
		timedOut = true
		syscall.Kill(-p.pg, syscall.SIGKILL)
		err = <-waited
	case memory = <-over:
		syscall.Kill(-p.pg, syscall.SIGKILL)
		err = <-waited
	case <-h.done:
		syscall.Kill(-p.pg, syscall.SIGKILL)
		err = <-waited
	}
	close(stop)
	// What the program left running in its group goes with it, and its
	// hold on the pipes.
	syscall.Kill(-p.pg, syscall.SIGKILL)
	pumps.Wait()
	n = wrote[0] + wrote[1]
	res = &spawnResult{TimedOut: timedOut}
	if memory > 0 {
		res.memory = fmt.Sprintf("killed: resident memory %d MiB, over the limit of %d MiB", memory>>20, h.opts.MemoryMB)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) && !errors.Is(err, exec.ErrWaitDelay) || p.cmd.ProcessState == nil {
		res.Signal = "SIGKILL"
	} else if code, sig := exitOf(p.cmd.ProcessState, h.spawns.sentTo(p.pg)); sig != 0 {
		res.Signal = signalName(sig)
	} else {
		res.Code = &code
	}
	if err := h.conn.send(message{Method: "spawn/exit", Params: exitParams{Token: token, Code: res.Code, Signal: res.Signal, TimedOut: timedOut}}); err != nil {
		h.log.Debug("spawn/exit not sent", "err", err)
	}
	return res, n
}

// pump sends what f gives to the host, a chunk at a time, each once the
// host has answered for the one before, until f ends; it returns the
// bytes read. When the host does not take a chunk (it forgot the
// program, or it ended), the rest is read and dropped so the program
// does not block on a full pipe.
func (h *Host) pump(f *os.File, token, name string) int64 {
	buf := make([]byte, streamChunk)
	var n int64
	taking := true
	for {
		k, err := f.Read(buf)
		n += int64(k)
		if k > 0 && taking {
			taking = h.sendData(token, name, buf[:k])
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				h.log.Debug("spawn: read "+name, "err", err)
			}
			return n
		}
	}
}

// sendData sends one chunk and waits for the host's answer; false when
// the host refused it or ended.
func (h *Host) sendData(token, name string, b []byte) bool {
	id, cl, err := h.conn.request("spawn/data", dataParams{Token: token, Stream: name, Data: base64.StdEncoding.EncodeToString(b)})
	if err != nil {
		return false
	}
	select {
	case <-cl.done:
		return cl.err == nil
	case <-h.done:
		h.conn.forget(id)
		return false
	}
}

// serveWrite answers "spawn/write": the data goes to the stdin of the
// asking extension's stream once the program takes it.
func (h *Host) serveWrite(raw json.RawMessage, _ *ticket) (any, error) {
	req, s, err := h.streamOf(raw)
	if err != nil {
		return nil, err
	}
	b, err := base64.StdEncoding.DecodeString(req.Data)
	if err != nil {
		return nil, fmt.Errorf("spawn: write: the data is not base64: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.stdin.Write(b); err != nil {
		return nil, fmt.Errorf("spawn: write to the program's stdin: %w", err)
	}
	return struct{}{}, nil
}

// serveEnd answers "spawn/end": the stream's stdin is closed (the
// program reads its end), after the writes before it.
func (h *Host) serveEnd(raw json.RawMessage, _ *ticket) (any, error) {
	_, s, err := h.streamOf(raw)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.stdin.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return nil, fmt.Errorf("spawn: close the program's stdin: %w", err)
	}
	return struct{}{}, nil
}

// streamOf decodes a spawn/write or spawn/end request and finds the
// stream it names among the asking extension's own.
func (h *Host) streamOf(raw json.RawMessage) (*streamRequest, *stream, error) {
	var req streamRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, nil, fmt.Errorf("spawn: bad request: %w", err)
	}
	e, err := h.extension(req.Extension, "spawn")
	if err != nil {
		return nil, nil, err
	}
	s := h.spawns.stream(e.ID + "\x00" + req.Token)
	if s == nil {
		return nil, nil, denyf("spawn: %s runs no program named %q", e.ID, clip(req.Token, maxEventField))
	}
	return &req, s, nil
}
