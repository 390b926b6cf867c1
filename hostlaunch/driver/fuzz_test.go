package driver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/airvsx/airvsx/hostlaunch/host"
)

// answerPool answers every request with what its params were, and every
// command with an error: the driver's own parsing is under test.
type answerPool struct{}

func (answerPool) Request(_ context.Context, method string, params json.RawMessage) (json.RawMessage, []host.Event, error) {
	if method == "diagnostics" {
		return nil, nil, errors.New("no diagnostics here")
	}
	return params, nil, nil
}

func (answerPool) ExecuteCommand(context.Context, string, ...any) (*host.Result, error) {
	return nil, errors.New("no commands here")
}

func (answerPool) Drain() []host.Event                             { return nil }
func (answerPool) Sync(context.Context, []host.Event) []host.Event { return nil }

// FuzzServe feeds the driver arbitrary client input: it never panics,
// every line it writes is one JSON-RPC message, and every request with
// an id gets one answer.
func FuzzServe(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
		`{"jsonrpc":"2.0","id":2,"method":"provide","params":{"kind":"completion"}}` + "\n" + `{"jsonrpc":"2.0","id":3,"method":"diagnostics"}`,
		`{"jsonrpc":"2.0","id":"x","method":"commands/execute","params":{"command":"a","args":[1,{"b":2}]}}`,
		`{"jsonrpc":"2.0","method":"documents/open","params":{}}`,
		`{"jsonrpc":"2.0","id":4,"result":{"selected":[0]}}`,
		`not json` + "\n" + `{"id":5}` + "\n" + `{"jsonrpc":"2.0","id":6,"method":"no/such"}`,
		`{"jsonrpc":"2.0","id":7,"method":"shutdown"}` + "\n" + `{"jsonrpc":"2.0","id":8,"method":"initialize"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		srv := New(&out, nil)
		if err := srv.Serve(t.Context(), bytes.NewReader(in), answerPool{}, Info{APIVersion: "1.140.0"}); err != nil {
			return // a line longer than the limit: refused as a whole
		}
		answered := map[string]int{}
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, 1<<26)
		for sc.Scan() {
			var m message
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.JSONRPC != "2.0" {
				t.Fatalf("the driver wrote a line that is not a JSON-RPC message: %q (%v)", sc.Bytes(), err)
			}
			if m.Method == "" {
				answered[string(m.ID)]++
			}
		}
		// No request is answered more often than it was asked (a client
		// may reuse an id; each asking gets its answer).
		asked := map[string]int{}
		for _, line := range bytes.Split(in, []byte("\n")) {
			var m message
			if json.Unmarshal(line, &m) == nil && m.Method != "" && len(m.ID) > 0 {
				asked[string(m.ID)]++
			}
		}
		for id, n := range answered {
			if id != "null" && n > asked[id] {
				t.Errorf("request %s answered %d times, asked %d", id, n, asked[id])
			}
		}
	})
}
