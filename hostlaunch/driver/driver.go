// Package driver lets an editor, a daemon or a CI job use the extension
// hosts: a JSON-RPC 2.0 protocol over a byte stream (airvsx host --stdio
// uses stdin and stdout), one JSON message per line.
//
// The client asks:
//
//	initialize        {}                       -> {apiVersion, extensions, activated, failed, requests}
//	commands/execute  {command, args?}         -> {value}
//	documents/open    {uri | path, languageId?, text?, show?} -> {activated, document}
//	documents/change  {uri, text} | {uri, changes: [{range, text}]} -> document
//	documents/save    {uri}                    -> document with saved
//	documents/close   {uri}                    -> {}
//	documents/get     {uri}                    -> document with text
//	documents/list    {}                       -> {documents, active}
//	documents/show    {uri}                    -> {}
//	documents/language {uri | path}            -> {languageId}
//	provide           {kind, uri, position?, range?, options?, ...} -> {items, providers, errors}
//	diagnostics       {uri?}                   -> {diagnostics: [{uri, diagnostics}]}
//	tree/views        {}                       -> {views: [{view, extension}]}
//	tree/children     {view, handle?}          -> {items: [{handle, label, collapsibleState, ...}]}
//	shutdown          {}                       -> {} (deactivates everything; the server then returns)
//
// The server sends the notification "event" (params: one host.Event) for
// everything the hosts report, and asks the client "ui/quickPick",
// "ui/inputBox" and "ui/message" (params: {extension, claimed,
// question}: the extension that asks, a name it claimed that is none of
// the hosts', and host.Question's Params) when an extension asks the user; the client's result is the answer ({selected}
// or {value}; null dismisses). Positions are zero-based lines and UTF-16
// characters; kinds and severities are vscode's enum values. The full
// description, with examples, is docs/driver.md.
package driver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/airvsx/airvsx/hostlaunch/host"
)

// maxMessage caps one message from the client.
const maxMessage = 64 << 20

// maxInFlight caps the client's requests served at once; more wait, up
// to maxPending in all, and past that are refused (codeBusy).
const (
	maxInFlight = 16
	maxPending  = 1024
)

// Pool is what the server drives (a *host.Pool).
type Pool interface {
	Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, []host.Event, error)
	ExecuteCommand(ctx context.Context, id string, args ...any) (*host.Result, error)
	Drain() []host.Event
	Sync(ctx context.Context, events []host.Event) []host.Event
}

// Info is what initialize answers.
type Info struct {
	APIVersion string   `json:"apiVersion"`
	Extensions []string `json:"extensions"`
	Activated  []string `json:"activated"`
	Failed     []string `json:"failed,omitempty"`
	Requests   []string `json:"requests"`
}

// Server is one client's connection. Make it with New (it is the hosts'
// host.UI: pass it as host.Options.UI), then Serve.
type Server struct {
	w   io.Writer
	log *slog.Logger

	wmu sync.Mutex // one message at a time on w

	mu      sync.Mutex
	lastID  int64
	waiting map[int64]chan reply // questions asked of the client
	closed  bool
}

type reply struct {
	result json.RawMessage
	err    *rpcError
}

// New returns a server that writes to w; log may be nil.
func New(w io.Writer, log *slog.Logger) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{w: w, log: log, waiting: map[int64]chan reply{}}
}

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// JSON-RPC error codes.
const (
	codeParse          = -32700
	codeInvalid        = -32600
	codeMethodNotFound = -32601
	codeFailed         = -32000
	codeBusy           = -32003
)

// send writes one message as a line.
func (s *Server) send(m message) error {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err = s.w.Write(append(b, '\n'))
	return err
}

// Answer asks the client the question (host.UI).
func (s *Server) Answer(ctx context.Context, q host.Question) (json.RawMessage, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errors.New("the driver's client is gone")
	}
	s.lastID++
	id := s.lastID
	ch := make(chan reply, 1)
	s.waiting[id] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.waiting, id)
		s.mu.Unlock()
	}()
	params, err := json.Marshal(map[string]any{"extension": q.Extension, "claimed": q.Claimed, "question": q.Params})
	if err != nil {
		return nil, err
	}
	if err := s.send(message{ID: json.RawMessage(strconv.FormatInt(id, 10)), Method: "ui/" + q.Kind, Params: params}); err != nil {
		return nil, fmt.Errorf("ask the client: %w", err)
	}
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, fmt.Errorf("the client answered ui/%s with an error: %s", q.Kind, r.err.Message)
		}
		return r.result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Serve reads the client's messages from r until it ends, the client asks
// shutdown, or ctx is done; it streams the pool's events meanwhile. It
// does not close the pool.
func (s *Server) Serve(ctx context.Context, r io.Reader, pool Pool, info Info) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer func() {
		s.mu.Lock()
		s.closed = true
		for id, ch := range s.waiting {
			ch <- reply{err: &rpcError{Code: codeFailed, Message: "the driver stopped"}}
			delete(s.waiting, id)
		}
		s.mu.Unlock()
	}()
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.stream(ctx, pool)
	}()

	lines, readErr := readLines(ctx, r)
	d := &dispatcher{s: s, pool: pool, info: info, wg: &wg, slots: make(chan struct{}, maxInFlight), lastChange: make(chan struct{})}
	close(d.lastChange)
	handlers := &d.handlers
	for {
		var line []byte
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-readErr:
			if err != nil {
				return fmt.Errorf("read the client's messages: %w", err)
			}
			// The client closed its end: as shutdown, the requests being
			// served finish first.
			finish(ctx, handlers)
			return nil
		case line = <-lines:
		}
		if len(line) == 0 {
			continue
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			s.send(message{ID: json.RawMessage("null"), Error: &rpcError{Code: codeParse, Message: "not a JSON-RPC message: " + err.Error()}})
			continue
		}
		if m.Method == "" {
			s.answered(m)
			continue
		}
		if m.Method == "shutdown" {
			// The requests being served finish first (within a bound).
			finish(ctx, handlers)
			if len(m.ID) > 0 {
				s.send(message{ID: m.ID, Result: json.RawMessage("{}")})
			}
			return nil
		}
		d.start(ctx, m)
	}
}

// readLines reads r's lines, one message each, on a goroutine of its own
// until r ends or ctx does; the error channel then gets why r ended (nil
// at its end).
func readLines(ctx context.Context, r io.Reader) (<-chan []byte, <-chan error) {
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), maxMessage)
		for sc.Scan() {
			b := append([]byte(nil), sc.Bytes()...)
			select {
			case lines <- b:
			case <-ctx.Done():
				return
			}
		}
		readErr <- sc.Err()
	}()
	return lines, readErr
}

// dispatcher serves the client's requests of one Serve, each on a
// goroutine of its own, in bounds: at most maxPending accepted and
// maxInFlight running at once.
//
// Order: a request that changes the documents (documents/open, change,
// save, close, show) starts once every earlier one of them has finished,
// and every later request waits for it: a request sees the documents as
// the client's earlier messages left them. Other requests run
// concurrently.
type dispatcher struct {
	s        *Server
	pool     Pool
	info     Info
	wg       *sync.WaitGroup // Serve's goroutines
	handlers sync.WaitGroup  // the client's requests being served
	slots    chan struct{}
	pending  atomic.Int64
	// lastChange is closed when the latest request that changes the
	// documents has finished (Serve's loop alone sets it).
	lastChange chan struct{}
}

// start serves request m, or refuses it at once when maxPending are
// being served already.
func (d *dispatcher) start(ctx context.Context, m message) {
	s := d.s
	if d.pending.Add(1) > maxPending {
		d.pending.Add(-1)
		s.send(message{ID: m.ID, Error: &rpcError{Code: codeBusy, Message: fmt.Sprintf("the driver is serving %d requests already: refused, wait for answers before asking more", maxPending)}})
		return
	}
	d.wg.Add(1)
	d.handlers.Add(1)
	after := d.lastChange
	var done chan struct{}
	if changesDocuments[m.Method] {
		done = make(chan struct{})
		d.lastChange = done
	}
	go func() {
		defer d.wg.Done()
		defer d.handlers.Done()
		defer d.pending.Add(-1)
		if done != nil {
			defer close(done)
		}
		select {
		case <-after:
		case <-ctx.Done():
			return
		}
		select {
		case d.slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		defer func() { <-d.slots }()
		res, err := s.handle(ctx, d.pool, d.info, m)
		if len(m.ID) == 0 {
			return // a notification: no answer
		}
		if err != nil {
			s.send(message{ID: m.ID, Error: err})
			return
		}
		s.send(message{ID: m.ID, Result: res})
	}()
}

// finish waits for the requests being served (handlers), at most
// shutdownWait.
func finish(ctx context.Context, handlers *sync.WaitGroup) {
	done := make(chan struct{})
	go func() { handlers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(shutdownWait):
	case <-ctx.Done():
	}
}

// answered delivers the client's answer to a question.
func (s *Server) answered(m message) {
	id, err := strconv.ParseInt(string(m.ID), 10, 64)
	if err != nil {
		return
	}
	s.mu.Lock()
	ch := s.waiting[id]
	s.mu.Unlock()
	if ch == nil {
		return // dismissed meanwhile, or never asked
	}
	select {
	case ch <- reply{result: m.Result, err: m.Error}:
	default:
	}
}

// handle serves one request of the client.
func (s *Server) handle(ctx context.Context, pool Pool, info Info, m message) (json.RawMessage, *rpcError) {
	switch m.Method {
	case "initialize":
		for k := range host.Requests {
			info.Requests = append(info.Requests, k)
		}
		b, _ := json.Marshal(info)
		return b, nil
	case "commands/execute":
		var p struct {
			Command string            `json:"command"`
			Args    []json.RawMessage `json:"args"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil || p.Command == "" {
			return nil, &rpcError{Code: codeInvalid, Message: "commands/execute: params {command, args?} are required"}
		}
		args := make([]any, len(p.Args))
		for i, a := range p.Args {
			args[i] = a
		}
		res, err := pool.ExecuteCommand(ctx, p.Command, args...)
		if err != nil {
			return nil, &rpcError{Code: codeFailed, Message: err.Error()}
		}
		b, _ := json.Marshal(map[string]json.RawMessage{"value": res.Value})
		return b, nil
	}
	if _, ok := host.Requests[m.Method]; !ok {
		return nil, &rpcError{Code: codeMethodNotFound, Message: "no method " + m.Method}
	}
	res, _, err := pool.Request(ctx, m.Method, m.Params)
	if err != nil {
		return nil, &rpcError{Code: codeFailed, Message: err.Error()}
	}
	return res, nil
}

// changesDocuments are the requests that change the documents (see the
// order in Serve).
var changesDocuments = map[string]bool{
	"documents/open": true, "documents/change": true, "documents/save": true, "documents/close": true, "documents/show": true,
}

// shutdownWait bounds how long shutdown waits for the requests being
// served.
const shutdownWait = 30 * time.Second

// pollEvery is how often the hosts' events are collected for the client.
const pollEvery = 10 * time.Millisecond

// stream sends the pool's events to the client as they come, and copies
// an extension's edits to the other hosts.
func (s *Server) stream(ctx context.Context, pool Pool) {
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			for _, e := range pool.Drain() {
				s.event(e)
			}
			return
		case <-t.C:
		}
		events := pool.Drain()
		for _, e := range events {
			s.event(e)
		}
		pool.Sync(ctx, events)
	}
}

func (s *Server) event(e host.Event) {
	b, err := json.Marshal(e)
	if err != nil {
		return
	}
	if err := s.send(message{Method: "event", Params: b}); err != nil {
		s.log.Debug("event not sent", "err", err)
	}
}
