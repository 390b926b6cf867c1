package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// driverClient is an editor talking to airvsx host --stdio: it asks, and
// answers the questions extensions put to the user with answer.
type driverClient struct {
	t      *testing.T
	in     io.WriteCloser
	mu     sync.Mutex
	lastID int
	calls  map[int]chan driverReply
	events []map[string]any
	asked  []driverQuestion
	answer func(q driverQuestion) any
	wmu    sync.Mutex
}

type driverReply struct {
	Result json.RawMessage
	Error  *struct {
		Code    int
		Message string
	}
}

type driverQuestion struct {
	Method   string
	Question map[string]any
}

func startDriver(t *testing.T, args ...string) (*driverClient, func() error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	cmd := airvsxCmd(ctx, t, append([]string{"host", "--stdio"}, args...)...)
	cmd.Env = append(cmd.Env, "XDG_STATE_HOME="+os.Getenv("XDG_STATE_HOME"))
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &driverClient{t: t, in: in, calls: map[int]chan driverReply{}}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			c.take(sc.Bytes())
		}
	}()
	t.Cleanup(func() {
		cancel()
		if t.Failed() {
			t.Logf("host stderr:\n%s", stderr.String())
		}
	})
	wait := func() error {
		in.Close()
		<-readDone
		err := cmd.Wait()
		if err != nil {
			return fmt.Errorf("%w\n%s", err, stderr.String())
		}
		return nil
	}
	return c, wait
}

// take handles one message from the server.
func (c *driverClient) take(line []byte) {
	var m struct {
		ID     *int            `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		driverReply
	}
	if err := json.Unmarshal(line, &m); err != nil {
		c.t.Errorf("the server sent a line that is not JSON: %q", line)
		return
	}
	switch {
	case m.Method == "event":
		var e map[string]any
		json.Unmarshal(m.Params, &e)
		c.mu.Lock()
		c.events = append(c.events, e)
		c.mu.Unlock()
	case strings.HasPrefix(m.Method, "ui/") && m.ID != nil:
		var p struct {
			Question map[string]any `json:"question"`
		}
		json.Unmarshal(m.Params, &p)
		q := driverQuestion{Method: m.Method, Question: p.Question}
		c.mu.Lock()
		c.asked = append(c.asked, q)
		answer := c.answer
		c.mu.Unlock()
		var a any
		if answer != nil {
			a = answer(q)
		}
		c.send(map[string]any{"jsonrpc": "2.0", "id": *m.ID, "result": a})
	case m.ID != nil:
		c.mu.Lock()
		ch := c.calls[*m.ID]
		delete(c.calls, *m.ID)
		c.mu.Unlock()
		if ch == nil {
			c.t.Errorf("an answer to nothing asked: %s", line)
			return
		}
		ch <- m.driverReply
	}
}

func (c *driverClient) send(m any) {
	b, _ := json.Marshal(m)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.in.Write(append(b, '\n'))
}

// call asks method and decodes the result into v; it fails the test on
// an error answer.
func (c *driverClient) call(method string, params, v any) {
	c.t.Helper()
	if err := c.try(method, params, v); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *driverClient) try(method string, params, v any) error {
	return c.wait(c.ask(method, params), v)
}

// ask sends a request without waiting for its answer (wait waits).
func (c *driverClient) ask(method string, params any) chan driverReply {
	c.mu.Lock()
	c.lastID++
	id := c.lastID
	ch := make(chan driverReply, 1)
	c.calls[id] = ch
	c.mu.Unlock()
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return ch
}

func (c *driverClient) wait(ch chan driverReply, v any) error {
	select {
	case r := <-ch:
		if r.Error != nil {
			return fmt.Errorf("error %d: %s", r.Error.Code, r.Error.Message)
		}
		if v != nil {
			return json.Unmarshal(r.Result, v)
		}
		return nil
	case <-time.After(time.Minute):
		return fmt.Errorf("no answer within a minute")
	}
}

// waitEvent waits for an event that match accepts.
func (c *driverClient) waitEvent(what string, match func(e map[string]any) bool) map[string]any {
	c.t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		c.mu.Lock()
		for _, e := range c.events {
			if match(e) {
				c.mu.Unlock()
				return e
			}
		}
		c.mu.Unlock()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t.Fatalf("no %s event; events: %v", what, c.events)
	return nil
}

// TestDriver is an editor using the extension hosts through the driver,
// in the kernel sandbox: documents, a language server of our own over
// stdio (completion, hover, diagnostics), a formatter, code actions,
// symbols, a tree view, a quick pick and an input box answered by the
// client, a content provider, and a workspace edit saved to disk.
func TestDriver(t *testing.T) {
	work := t.TempDir()
	ext := installHostFixtures(t, work, "airvsx-demo.lang-tools-1.0.0.vsix", "airvsx-demo.lsp-demo-1.0.0.vsix")
	ws := filepath.Join(work, "ws")
	lsp := filepath.Join(ws, "a.lspdemo")
	demo := filepath.Join(ws, "b.demo")
	writeFile(t, lsp, "hello world\nthis is bad\nhello again\n")
	writeFile(t, demo, "top {\nprint x   \n  inner {\nTODO\n}\n}\n")
	lspURI, demoURI := "file://"+lsp, "file://"+demo

	c, wait := startDriver(t, "--extensions", ext, "--workspace", ws)
	var info struct {
		APIVersion string
		Extensions []string
	}
	c.call("initialize", map[string]any{}, &info)
	if info.APIVersion != "1.140.0" || len(info.Extensions) != 2 {
		t.Fatalf("initialize: %+v", info)
	}

	t.Run("language server", func(t *testing.T) {
		var opened struct {
			Document struct{ URI, LanguageID string }
		}
		c.call("documents/open", map[string]any{"path": lsp}, &opened)
		if opened.Document.URI != lspURI || opened.Document.LanguageID != "lspdemo" {
			t.Fatalf("documents/open: %+v", opened)
		}
		c.waitEvent("diagnostics from the server", func(e map[string]any) bool {
			msgs, _ := c.diagnosticsOfLocked(e, lspURI, "lsp-demo")
			return len(msgs) == 1 && msgs[0] == `"bad" on line 2`
		})
		var comp struct {
			Items []struct{ Label, Detail, Extension string }
		}
		c.call("provide", map[string]any{"kind": "completion", "uri": lspURI, "position": map[string]int{"line": 0, "character": 3}}, &comp)
		var labels []string
		for _, it := range comp.Items {
			if it.Extension == "airvsx-demo.lsp-demo" && it.Detail == "a word of this document" {
				labels = append(labels, it.Label)
			}
		}
		if strings.Join(labels, ",") != "again,bad,hello,is,this,world" {
			t.Errorf("completion from the language server: %v (all: %+v)", labels, comp.Items)
		}
		var hover struct {
			Items []struct {
				Contents []struct{ Kind, Value string }
			}
		}
		c.call("provide", map[string]any{"kind": "hover", "uri": lspURI, "position": map[string]int{"line": 2, "character": 1}}, &hover)
		if len(hover.Items) != 1 || len(hover.Items[0].Contents) != 1 || hover.Items[0].Contents[0].Value != "**hello** occurs 2 time(s)" {
			t.Errorf("hover: %+v", hover)
		}
		// A change the client makes reaches the server, whose diagnostics follow.
		c.call("documents/change", map[string]any{"uri": lspURI, "text": "all good now\n"}, nil)
		c.waitEvent("diagnostics cleared", func(e map[string]any) bool {
			msgs, ok := c.diagnosticsOfLocked(e, lspURI, "lsp-demo")
			return ok && len(msgs) == 0
		})
	})

	t.Run("pipelined", func(t *testing.T) {
		// Requests sent back to back: the hover sees the document the
		// open and the change before it made.
		f := filepath.Join(ws, "c.lspdemo")
		writeFile(t, f, "first\n")
		open := c.ask("documents/open", map[string]any{"path": f})
		change := c.ask("documents/change", map[string]any{"uri": "file://" + f, "text": "second second\n"})
		hover := c.ask("provide", map[string]any{"kind": "hover", "uri": "file://" + f, "position": map[string]int{"line": 0, "character": 1}})
		var h struct {
			Items []struct {
				Contents []struct{ Value string }
			}
		}
		for _, err := range []error{c.wait(open, nil), c.wait(change, nil), c.wait(hover, &h)} {
			if err != nil {
				t.Fatal(err)
			}
		}
		if len(h.Items) != 1 || h.Items[0].Contents[0].Value != "**second** occurs 2 time(s)" {
			t.Errorf("hover after open and change: %+v", h)
		}
		c.call("documents/close", map[string]any{"uri": "file://" + f}, nil)
	})

	t.Run("formatter, lint, code actions, symbols", func(t *testing.T) {
		c.call("documents/open", map[string]any{"path": demo}, nil)
		c.waitEvent("demo-lint diagnostics", func(e map[string]any) bool {
			msgs, _ := c.diagnosticsOfLocked(e, demoURI, "demo-lint")
			return len(msgs) == 1 && msgs[0] == "TODO left in the code"
		})
		var diags struct {
			Diagnostics []struct {
				URI         string
				Diagnostics []struct {
					Message  string
					Severity int
					Code     string
				}
			}
		}
		c.call("diagnostics", map[string]any{"uri": demoURI}, &diags)
		if len(diags.Diagnostics) != 1 || len(diags.Diagnostics[0].Diagnostics) != 1 || diags.Diagnostics[0].Diagnostics[0].Severity != 1 || diags.Diagnostics[0].Diagnostics[0].Code != "todo" {
			t.Errorf("diagnostics: %+v", diags)
		}
		var fmtd struct {
			Items []struct {
				Range   map[string]map[string]int
				NewText string
			}
		}
		c.call("provide", map[string]any{"kind": "formatting", "uri": demoURI, "options": map[string]any{"tabSize": 2, "insertSpaces": true}}, &fmtd)
		var texts []string
		for _, e := range fmtd.Items {
			texts = append(texts, fmt.Sprintf("%d:%q", e.Range["start"]["line"], e.NewText))
		}
		if got := strings.Join(texts, " "); got != `1:"  print x" 3:"    TODO" 4:"  }"` {
			t.Errorf("formatting edits: %s", got)
		}
		var actions struct {
			Items []struct {
				Title, Kind string
				Edit        struct {
					Changes []struct {
						URI   string
						Edits []struct{ NewText string }
					}
				}
			}
		}
		c.call("provide", map[string]any{"kind": "codeActions", "uri": demoURI, "range": map[string]any{"start": map[string]int{"line": 3, "character": 0}, "end": map[string]int{"line": 3, "character": 4}}}, &actions)
		if len(actions.Items) != 1 || actions.Items[0].Title != "Remove the TODO" || actions.Items[0].Kind != "quickfix" || len(actions.Items[0].Edit.Changes) != 1 || actions.Items[0].Edit.Changes[0].URI != demoURI {
			t.Errorf("code actions: %+v", actions)
		}
		var syms struct{ Items []struct{ Name string } }
		c.call("provide", map[string]any{"kind": "documentSymbols", "uri": demoURI}, &syms)
		if len(syms.Items) != 2 || syms.Items[0].Name != "top" || syms.Items[1].Name != "inner" {
			t.Errorf("symbols: %+v", syms)
		}
		var none struct{ Items []any }
		if err := c.try("provide", map[string]any{"kind": "teleport", "uri": demoURI}, &none); err == nil || !strings.Contains(err.Error(), "unknown provider kind teleport") {
			t.Errorf("an unknown kind: %v", err)
		}
	})

	t.Run("tree view", func(t *testing.T) {
		var views struct {
			Views []struct{ View, Extension string }
		}
		c.call("tree/views", map[string]any{}, &views)
		if len(views.Views) != 1 || views.Views[0].View != "langTools.outline" {
			t.Fatalf("tree/views: %+v", views)
		}
		type item struct {
			Handle, Label, Description string
			CollapsibleState           int
		}
		var roots struct{ Items []item }
		c.call("tree/children", map[string]any{"view": "langTools.outline"}, &roots)
		if len(roots.Items) != 2 || roots.Items[0].Label != "top" || roots.Items[0].CollapsibleState != 1 {
			t.Fatalf("roots: %+v", roots)
		}
		var kids struct{ Items []item }
		c.call("tree/children", map[string]any{"view": "langTools.outline", "handle": roots.Items[0].Handle}, &kids)
		if len(kids.Items) != 2 || kids.Items[0].Label != "print x" || kids.Items[1].Label != "inner" || kids.Items[0].Description != "line 2" {
			t.Errorf("children of top: %+v", kids)
		}
		if err := c.try("tree/children", map[string]any{"view": "nope"}, nil); err == nil {
			t.Error("tree/children of an unknown view answered")
		}
	})

	t.Run("quick pick and input box", func(t *testing.T) {
		c.mu.Lock()
		c.answer = func(q driverQuestion) any {
			switch q.Method {
			case "ui/quickPick":
				return map[string]any{"selected": []int{1}}
			case "ui/inputBox":
				if q.Question["validationMessage"] == nil {
					return map[string]any{"value": "  "} // refused by validateInput
				}
				return map[string]any{"value": "Ada"}
			}
			return nil
		}
		c.mu.Unlock()
		var pick struct{ Value string }
		c.call("commands/execute", map[string]any{"command": "langTools.pickGreeting"}, &pick)
		if pick.Value != "Bonjour" {
			t.Errorf("pickGreeting: %q", pick.Value)
		}
		c.waitEvent("the message", func(e map[string]any) bool { return e["kind"] == "message" && e["text"] == "Bonjour!" })
		var name struct{ Value string }
		c.call("commands/execute", map[string]any{"command": "langTools.askName"}, &name)
		if name.Value != "Hello, Ada" {
			t.Errorf("askName: %q", name.Value)
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if len(c.asked) != 3 || c.asked[0].Question["placeHolder"] != "Pick a greeting" || c.asked[2].Question["validationMessage"] != "a name, please" {
			t.Errorf("questions: %+v", c.asked)
		}
		items, _ := c.asked[0].Question["items"].([]any)
		if len(items) != 3 || items[1].(map[string]any)["label"] != "Bonjour" {
			t.Errorf("quick pick items: %v", items)
		}
	})

	t.Run("content provider", func(t *testing.T) {
		var notes struct {
			Value struct {
				Text   string
				Lines  int
				Active string
			}
		}
		c.call("commands/execute", map[string]any{"command": "langTools.showNotes"}, &notes)
		if notes.Value.Text != "notes for /today\nline two\n" || notes.Value.Lines != 3 || notes.Value.Active != "demo-notes:/today" {
			t.Errorf("showNotes: %+v", notes)
		}
		// The client opens one too: only lang-tools' host can read it (the
		// other host has no such provider), and it cannot be saved.
		var doc struct{ Document struct{ URI string } }
		c.call("documents/open", map[string]any{"uri": "demo-notes:/later"}, &doc)
		var got struct {
			Text  string
			Saved *bool
		}
		c.call("documents/get", map[string]any{"uri": "demo-notes:/later"}, &got)
		if got.Text != "notes for /later\nline two\n" {
			t.Errorf("documents/get of a provider's document: %+v", got)
		}
		// Providers are asked in the hosts that have it (none hovers plain text).
		var ph struct {
			Items     []any
			Providers int
		}
		c.call("provide", map[string]any{"kind": "hover", "uri": "demo-notes:/later", "position": map[string]int{"line": 0, "character": 1}}, &ph)
		if len(ph.Items) != 0 || ph.Providers != 0 {
			t.Errorf("hover in a provider's document: %+v", ph)
		}
		c.call("documents/save", map[string]any{"uri": "demo-notes:/later"}, &got)
		if got.Saved == nil || *got.Saved {
			t.Errorf("documents/save of a read-only document: %+v", got)
		}
		// An untitled document has one name in every host.
		var u struct {
			Document struct{ URI, LanguageID string }
		}
		c.call("documents/open", map[string]any{"languageId": "lspdemo"}, &u)
		if !strings.HasPrefix(u.Document.URI, "untitled:Untitled-") || u.Document.LanguageID != "lspdemo" {
			t.Errorf("an untitled document: %+v", u)
		}
		c.call("documents/change", map[string]any{"uri": u.Document.URI, "text": "zeta\n"}, nil)
		var h struct{ Items []any }
		c.call("provide", map[string]any{"kind": "hover", "uri": u.Document.URI, "position": map[string]int{"line": 0, "character": 1}}, &h)
		if len(h.Items) != 1 {
			t.Errorf("hover in the untitled document (lsp-demo's host): %+v", h)
		}
	})

	t.Run("workspace edit saved", func(t *testing.T) {
		var r struct {
			Value struct {
				OK    bool
				Edits int
			}
		}
		c.call("commands/execute", map[string]any{"command": "langTools.renameWord", "args": []string{"print", "echo"}}, &r)
		if !r.Value.OK || r.Value.Edits != 1 {
			t.Errorf("renameWord: %+v", r)
		}
		b, err := os.ReadFile(demo)
		if err != nil || !strings.Contains(string(b), "echo x") {
			t.Errorf("b.demo on disk: %q, %v", b, err)
		}
		c.waitEvent("the edit", func(e map[string]any) bool { return e["kind"] == "edit" && e["uri"] == demoURI })
		c.waitEvent("the save", func(e map[string]any) bool { return e["kind"] == "saved" && e["uri"] == demoURI })
		var doc struct {
			Text    string
			IsDirty bool
		}
		c.call("documents/get", map[string]any{"uri": demoURI}, &doc)
		if doc.IsDirty || !strings.Contains(doc.Text, "echo x") {
			t.Errorf("documents/get: %+v", doc)
		}
	})

	if err := c.try("no/such", map[string]any{}, nil); err == nil || !strings.Contains(err.Error(), "-32601") {
		t.Errorf("an unknown method: %v", err)
	}
	c.call("shutdown", map[string]any{}, nil)
	if err := wait(); err != nil {
		t.Fatalf("host --stdio: %v", err)
	}
}

// TestDriverForkedServer is a language client that forks its server with
// node's IPC channel (child_process.fork, as vscode-languageclient's ipc
// transport does), in the kernel sandbox: the channel is carried over the
// brokered program's stdio.
func TestDriverForkedServer(t *testing.T) {
	work := t.TempDir()
	ext := installHostFixtures(t, work, "airvsx-demo.lsp-demo-1.0.0.vsix")
	settings := filepath.Join(work, "settings.json")
	writeFile(t, settings, `{"lspDemo.transport": "ipc"}`)
	ws := filepath.Join(work, "ws")
	f := filepath.Join(ws, "a.lspdemo")
	writeFile(t, f, "alpha bad beta alpha\n")
	c, wait := startDriver(t, "--extensions", ext, "--workspace", ws, "--settings", settings)
	c.call("documents/open", map[string]any{"path": f}, nil)
	var info struct {
		Value struct {
			Name, Transport string
			ClientPid       int
		}
	}
	c.call("commands/execute", map[string]any{"command": "lspDemo.serverInfo"}, &info)
	if info.Value.Name != "lsp-demo-server" || info.Value.Transport != "ipc" || info.Value.ClientPid < 1<<22 {
		t.Errorf("serverInfo: %+v", info.Value)
	}
	var hover struct {
		Items []struct{ Contents []struct{ Value string } }
	}
	c.call("provide", map[string]any{"kind": "hover", "uri": "file://" + f, "position": map[string]int{"line": 0, "character": 1}}, &hover)
	if len(hover.Items) != 1 || hover.Items[0].Contents[0].Value != "**alpha** occurs 2 time(s)" {
		t.Errorf("hover over ipc: %+v", hover)
	}
	c.waitEvent("diagnostics over ipc", func(e map[string]any) bool {
		msgs, _ := c.diagnosticsOfLocked(e, "file://"+f, "lsp-demo")
		return len(msgs) == 1 && msgs[0] == `"bad" on line 1`
	})
	c.call("shutdown", map[string]any{}, nil)
	if err := wait(); err != nil {
		t.Fatalf("host --stdio: %v", err)
	}
}

// installHostFixtures installs the packages of testdata/vsix/host into
// work/ext, with a state directory in work and a policy that grants
// lsp-demo spawn with node (its real path, as the host's process.execPath
// names it), and returns the extensions directory.
func installHostFixtures(t *testing.T, work string, vsix ...string) string {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", filepath.Join(work, "state"))
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	if node, err = filepath.EvalSymlinks(node); err != nil {
		t.Fatal(err)
	}
	policy := filepath.Join(work, "policy.yaml")
	writeFile(t, policy, fmt.Sprintf("version: 1\nextensions:\n  - id: airvsx-demo.*\ncapabilities:\n  - id: airvsx-demo.lsp-demo\n    grant: [spawn]\n    programs: [%s]\n", node))
	ext := filepath.Join(work, "ext")
	for _, v := range vsix {
		out, err := airvsxCmd(t.Context(), t, "install", filepath.Join("..", "..", "testdata", "vsix", "host", v), "--extensions", ext, "--policy", policy).CombinedOutput()
		if err != nil {
			t.Fatalf("install %s: %v\n%s", v, err, out)
		}
	}
	return ext
}

// diagnosticsOfLocked is diagnosticsOf for one event, with c.mu held by
// the caller (waitEvent).
func (c *driverClient) diagnosticsOfLocked(e map[string]any, uri, collection string) ([]string, bool) {
	if e["kind"] != "diagnostics" || e["uri"] != uri || e["name"] != collection {
		return nil, false
	}
	var msgs []string
	data, _ := e["data"].(map[string]any)
	ds, _ := data["diagnostics"].([]any)
	for _, d := range ds {
		msgs = append(msgs, d.(map[string]any)["message"].(string))
	}
	return msgs, true
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
