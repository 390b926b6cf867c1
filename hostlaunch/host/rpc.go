package host

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
)

// maxMessage caps one JSON-RPC message from the host: 16 MiB. A longer
// line is a protocol violation and ends the host.
const maxMessage = 16 << 20

// message is one JSON-RPC 2.0 message, either way.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      *int64          `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  any             `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// incoming is a message read from the host (params kept raw).
type incoming struct {
	message
	Params json.RawMessage `json:"params,omitempty"`
}

// rpcError is a JSON-RPC error; Data carries the extension it concerns.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    *struct {
		Kind      string `json:"kind"`
		Extension string `json:"extension"`
	} `json:"data,omitempty"`
}

// call is one request waiting for its response, with the events it caused.
type call struct {
	done   chan struct{}
	result json.RawMessage
	err    *rpcError
	events []Event
}

// conn is the launcher's end of the IPC channel.
type conn struct {
	f       *os.File
	wmu     sync.Mutex
	mu      sync.Mutex
	nextID  int64
	pending map[int64]*call
	// written counts the bytes written to f, for consumed.
	written atomic.Int64
}

// Write writes b to the channel, counting the bytes (for consumed); the
// caller holds wmu.
func (c *conn) Write(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		// In pieces, so that the count follows a long write as the host
		// reads it.
		k, err := c.f.Write(b[:min(len(b), writePiece)])
		n += k
		c.written.Add(int64(k))
		b = b[k:]
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// writePiece is the most Write writes at once.
const writePiece = 64 << 10

// consumed is how many of the bytes written the host has read, at least:
// those written less those the channel still holds (SIOCOUTQ, which
// counts a little more than the bytes), or -1 where the system cannot
// say. A host that reads what it is sent runs its event loop, even when
// a long reply keeps a ping from being sent (see heartbeat).
func (c *conn) consumed() int64 {
	w := c.written.Load()
	queued, err := outQueue(c.f)
	if err != nil {
		return -1
	}
	return w - queued
}

// send writes one message as a line.
func (c *conn) send(m message) error {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.Write(append(b, '\n'))
	return err
}

// request sends method and returns its pending call.
func (c *conn) request(method string, params any) (int64, *call, error) {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	cl := &call{done: make(chan struct{})}
	c.pending[id] = cl
	c.mu.Unlock()
	if err := c.send(message{ID: &id, Method: method, Params: params}); err != nil {
		c.forget(id)
		return 0, nil, fmt.Errorf("send %s: %w", method, err)
	}
	return id, cl, nil
}

func (c *conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// attach records ev on the pending request that caused it, up to
// maxEvents (the rest are dropped).
func (c *conn) attach(cause int64, ev Event) {
	c.mu.Lock()
	if cl := c.pending[cause]; cl != nil && len(cl.events) < maxEvents {
		cl.events = append(cl.events, ev)
	}
	c.mu.Unlock()
}

// resolve completes the request id.
func (c *conn) resolve(id int64, result json.RawMessage, err *rpcError) {
	c.mu.Lock()
	cl := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if cl != nil {
		cl.result, cl.err = result, err
		close(cl.done)
	}
}

// read calls handle for every message until the channel closes or a
// message is malformed.
func (c *conn) read(handle func(incoming)) error {
	sc := bufio.NewScanner(c.f)
	sc.Buffer(make([]byte, 64<<10), maxMessage)
	for sc.Scan() {
		var m incoming
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.JSONRPC != "2.0" {
			return fmt.Errorf("host sent a malformed message: %.200q", sc.Text())
		}
		handle(m)
	}
	return sc.Err()
}

// wait waits for cl, the host's end or ctx, and decodes the result into v.
func (h *Host) wait(ctx context.Context, id int64, cl *call, v any) error {
	select {
	case <-cl.done:
	case <-h.done:
		select {
		case <-cl.done:
		default:
			return h.Err()
		}
	case <-ctx.Done():
		h.conn.forget(id)
		return ctx.Err()
	}
	if cl.err != nil {
		return cl.err.asError()
	}
	if v == nil {
		return nil
	}
	return json.Unmarshal(cl.result, v)
}

// reply answers the host's request id: with rerr when it is not nil,
// else with res as JSON (an internal error when res does not encode);
// what names the request in the log.
func (h *Host) reply(id int64, res any, rerr *rpcError, what string) {
	m := message{ID: &id, Error: rerr}
	if rerr == nil {
		b, err := json.Marshal(res)
		if err != nil {
			m.Error = &rpcError{Code: -32603, Message: err.Error()}
		} else {
			m.Result = b
		}
	}
	if err := h.conn.send(m); err != nil {
		h.log.Debug(what+" reply not sent", "err", err)
	}
}

// replyBlob answers the host's request id with a result object holding
// the fields of head (nil, or what encodes as a JSON object) and field set
// to blob in base64. The reply is encoded as it is written to the
// channel: the launcher holds no copy of blob, whatever its size.
func (h *Host) replyBlob(id int64, head any, field string, blob []byte, what string) {
	if err := h.conn.sendBlob(id, head, field, blob); err != nil {
		h.log.Debug(what+" reply not sent", "err", err)
	}
}

// sendBlob writes the reply of replyBlob as one line.
func (c *conn) sendBlob(id int64, head any, field string, blob []byte) error {
	obj := []byte("{")
	if head != nil {
		b, err := json.Marshal(head)
		if err != nil || len(b) < 2 || b[0] != '{' {
			return fmt.Errorf("reply %d: the result head is not an object: %v", id, err)
		}
		obj = b[:len(b)-1] // without its closing brace
		if len(obj) > 1 {
			obj = append(obj, ',')
		}
	}
	name, err := json.Marshal(field)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	w := bufio.NewWriterSize(c, 64<<10)
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":`, id)
	w.Write(obj)
	w.Write(name)
	w.WriteString(`:"`)
	enc := base64.NewEncoder(base64.StdEncoding, w)
	enc.Write(blob)
	enc.Close()
	w.WriteString("\"}}\n")
	return w.Flush()
}

// call sends a request and waits for its result.
func (h *Host) call(ctx context.Context, method string, params, v any) ([]Event, error) {
	id, cl, err := h.conn.request(method, params)
	if err != nil {
		select {
		case <-h.done:
			return nil, h.Err()
		default:
			return nil, err
		}
	}
	err = h.wait(ctx, id, cl, v)
	h.conn.mu.Lock()
	events := cl.events
	h.conn.mu.Unlock()
	return events, err
}

// Error kinds of a CommandError.
const (
	// NotFound: no extension registered the command or waits for it.
	NotFound = "notFound"
	// ActivationFailed: an extension (or its dependency) failed to
	// activate.
	ActivationFailed = "activationFailed"
	// Threw: the command ran and threw.
	Threw = "threw"
	// NotOpen: a request named a document the host does not have open.
	NotOpen = "notOpen"
)

// ErrNotFound and ErrActivation match CommandErrors of kind NotFound and
// ActivationFailed with errors.Is.
var (
	ErrNotFound   = errors.New("command not found")
	ErrActivation = errors.New("activation failed")
)

// CommandError is a request the host answered with an error, with the
// extension it concerns when known.
type CommandError struct {
	Kind      string
	Extension string
	Message   string
}

// Error returns the host's message, which names the extension.
func (e *CommandError) Error() string { return e.Message }

// Is matches ErrNotFound and ErrActivation by kind.
func (e *CommandError) Is(target error) bool {
	return target == ErrNotFound && e.Kind == NotFound || target == ErrActivation && e.Kind == ActivationFailed
}

func (e *rpcError) asError() error {
	ce := &CommandError{Kind: Threw, Message: e.Message}
	if e.Data != nil {
		ce.Kind, ce.Extension = e.Data.Kind, e.Data.Extension
	}
	if ce.Kind == "" {
		ce.Kind = Threw
	}
	ce.Message = strings.TrimSpace(ce.Message)
	return ce
}
