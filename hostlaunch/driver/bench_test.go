package driver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/airvsx/airvsx/hostlaunch/driver"
	"github.com/airvsx/airvsx/hostlaunch/host"
	"github.com/airvsx/airvsx/hostlaunch/install"
	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/testkit/citool"
)

// lspDemo is the language client whose server.js (node over stdio,
// started through the spawn broker) answers completion with the words of
// the document.
const lspDemo = "../../testdata/vsix/host/airvsx-demo.lsp-demo-1.0.0.vsix"

// completions is how many completion requests one iteration of
// BenchmarkDriverCompletion sends: enough for a p99 at -benchtime 3x.
const completions = 100

// BenchmarkDriverCompletion measures a completion request as an editor
// sees it: a JSON-RPC line into the driver (over a pipe), the pool, the
// host, the extension's provider, its language server over stdio and
// back, timed at the client from writing the request to reading its
// answer. The hosts run without a sandbox (host.Direct). The document is
// opened once, untimed (that activates the client and starts the
// server). Each iteration sends completions requests, one at a time; it
// reports their p50 and p99 (ns/op is per iteration) and checks every
// answer holds the server's items. Goal: p50 < 5 ms; fails over 500 ms.
func BenchmarkDriverCompletion(b *testing.B) {
	node := citool.Need(b, "node")
	node, err := filepath.EvalSymlinks(node)
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	root := b.TempDir()
	e := installed(b, root, "airvsx-demo.lsp-demo")
	// The capability and program a policy would grant.
	e.Capabilities, e.Programs = []string{"spawn"}, []string{node}

	inR, inW := io.Pipe()   // client -> driver
	outR, outW := io.Pipe() // driver -> client
	srv := driver.New(outW, nil)
	pool, err := host.LaunchPool(ctx, host.Options{Extensions: []host.Extension{e}, StorageDir: filepath.Join(root, "storage"),
		Node: node, Command: host.Direct, UI: srv}, host.SuperviseOptions{})
	if err != nil {
		b.Fatalf("LaunchPool: %v", err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, inR, pool, driver.Info{}) }()
	c := newClient(inW, outR)
	b.Cleanup(func() {
		inW.Close() // Serve returns when the client's end closes
		<-served
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		pool.Close(cctx)
		outW.Close()
	})

	path := filepath.Join(root, "words.lspdemo")
	uri := (&url.URL{Scheme: "file", Path: path}).String()
	if _, err := c.call("documents/open", map[string]any{"path": path, "text": "hello world\nhello again\n"}); err != nil {
		b.Fatalf("documents/open: %v", err)
	}
	ask := map[string]any{"kind": "completion", "uri": uri, "position": map[string]int{"line": 0, "character": 3}}
	if _, err := c.call("provide", ask); err != nil { // the first one is not measured
		b.Fatalf("provide completion: %v", err)
	}

	var times []time.Duration
	for b.Loop() {
		for range completions {
			start := time.Now()
			res, err := c.call("provide", ask)
			d := time.Since(start)
			if err != nil {
				b.Fatalf("provide completion: %v", err)
			}
			if err := checkWords(res); err != nil {
				b.Fatal(err)
			}
			times = append(times, d)
		}
	}
	slices.Sort(times)
	p50, p99 := times[len(times)/2], times[min(len(times)-1, len(times)*99/100)]
	b.ReportMetric(float64(p50)/float64(time.Microsecond), "p50-µs")
	b.ReportMetric(float64(p99)/float64(time.Microsecond), "p99-µs")
	if p50 > 500*time.Millisecond {
		b.Fatalf("completion through the driver: p50 %v; the goal is 5 ms", p50)
	}
}

// checkWords checks a provide completion answer holds the server's
// items: the document's words, each with the server's detail.
func checkWords(res json.RawMessage) error {
	var r struct {
		Items []struct {
			Label  any    `json:"label"`
			Detail string `json:"detail"`
		} `json:"items"`
		Errors []any `json:"errors"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return fmt.Errorf("provide completion: %w (answer %s)", err, res)
	}
	var got []string
	for _, it := range r.Items {
		if it.Detail == "a word of this document" {
			got = append(got, fmt.Sprint(it.Label))
		}
	}
	slices.Sort(got)
	if want := []string{"again", "hello", "world"}; !slices.Equal(got, want) || len(r.Errors) > 0 {
		return fmt.Errorf("provide completion = %s; want the items %q with detail %q", res, want, "a word of this document")
	}
	return nil
}

// installed installs the fixture named id (testdata/vsix/host/<id>-*.vsix,
// here lspDemo) into root/extensions and returns it as the host runs it,
// as airvsx run maps a record.
func installed(b *testing.B, root, id string) host.Extension {
	b.Helper()
	dir, state := filepath.Join(root, "extensions"), filepath.Join(root, "state")
	if _, err := install.FromFile(b.Context(), lspDemo, install.Options{Dir: dir, StateDir: state}); err != nil {
		b.Fatalf("install %s: %v", lspDemo, err)
	}
	l, err := install.Load(b.Context(), dir, install.DirOptions{StateDir: state})
	if err != nil {
		b.Fatal(err)
	}
	xid, err := index.ParseID(id)
	if err != nil {
		b.Fatal(err)
	}
	r := l.Find(xid)
	if r == nil {
		b.Fatalf("%s is not among the installed extensions", id)
	}
	e := host.Extension{ID: r.ID.String(), Path: filepath.Join(l.Dir, r.Dir), Main: r.Main, ActivationEvents: r.Activation}
	for _, d := range r.Dependencies {
		e.Dependencies = append(e.Dependencies, d.String())
	}
	return e
}

// client is the driver's client: it sends requests as JSON lines and
// reads every line in the background, handing each answer to its caller
// and dropping events.
type client struct {
	w io.Writer

	mu      sync.Mutex
	lastID  int64
	waiting map[string]chan answer
	err     error // set when the driver's output ended
}

type answer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func newClient(w io.Writer, r io.Reader) *client {
	c := &client{w: w, waiting: map[string]chan answer{}}
	go c.read(r)
	return c
}

func (c *client) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			answer
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.Method != "" || len(m.ID) == 0 {
			continue // an event (or a question, which nothing here asks)
		}
		c.mu.Lock()
		ch := c.waiting[string(m.ID)]
		delete(c.waiting, string(m.ID))
		c.mu.Unlock()
		if ch != nil {
			ch <- m.answer
		}
	}
	c.mu.Lock()
	c.err = fmt.Errorf("the driver's output ended: %v", sc.Err())
	for id, ch := range c.waiting {
		close(ch)
		delete(c.waiting, id)
	}
	c.mu.Unlock()
}

// call sends one request and waits for its answer (at most 30 s).
func (c *client) call(method string, params any) (json.RawMessage, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	ch := make(chan answer, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, c.err
	}
	c.lastID++
	id := strconv.FormatInt(c.lastID, 10)
	c.waiting[id] = ch
	c.mu.Unlock()
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method, "params": json.RawMessage(p)})
	if _, err := c.w.Write(append(line, '\n')); err != nil {
		return nil, err
	}
	select {
	case a, ok := <-ch:
		if !ok {
			c.mu.Lock()
			defer c.mu.Unlock()
			return nil, c.err
		}
		if a.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, a.Error.Message)
		}
		return a.Result, nil
	case <-time.After(30 * time.Second):
		return nil, fmt.Errorf("%s: no answer in 30 s", method)
	}
}
