package netbroker_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airvsx/airvsx/hostlaunch/host"
	"github.com/airvsx/airvsx/hostlaunch/netbroker"
	"github.com/airvsx/airvsx/testkit/citool"
	"github.com/airvsx/airvsx/testkit/exttest"
)

// server is a loopback test server counting its requests.
type server struct {
	*httptest.Server
	hits atomic.Int64
}

func newServer(t *testing.T, h http.HandlerFunc) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// hostPort is the server's host:port, as a policy lists it.
func (s *server) hostPort() string { return strings.TrimPrefix(s.URL, "http://") }

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestFetch(t *testing.T) {
	other := newServer(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("other")) })
	var main *server
	main = newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/echo":
			b := make([]byte, 100)
			n, _ := r.Body.Read(b)
			w.Header().Set("X-Method", r.Method)
			w.Header().Set("X-Mine", r.Header.Get("X-Mine"))
			w.WriteHeader(http.StatusTeapot)
			w.Write(b[:n])
		case "/redirect-in":
			http.Redirect(w, r, main.URL+"/echo", http.StatusFound)
		case "/redirect-out":
			http.Redirect(w, r, other.URL+"/", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/big":
			w.Write(make([]byte, 2000))
		case "/slow":
			// Answers after 10 s, far past the broker's 1 s and short of
			// the 30 s default, unless the client gave up before.
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
				w.Write([]byte("too late"))
			}
		}
	})
	allowed := []string{main.hostPort()}
	b := netbroker.New(netbroker.Options{MaxBody: 1000, Timeout: time.Second})
	fetch := func(method, path, body string) (host.FetchResponse, error) {
		return b.Fetch(t.Context(), host.FetchRequest{Method: method, URL: mustURL(t, main.URL+path), Header: map[string][]string{"x-mine": {"1"}}, Body: []byte(body), AllowedHosts: allowed})
	}

	r, err := fetch("POST", "/echo", "ping")
	if err != nil || r.Status != 418 || r.StatusText != "I'm a teapot" || string(r.Body) != "ping" || r.Header["X-Method"][0] != "POST" || r.Header["X-Mine"][0] != "1" {
		t.Errorf("POST /echo = %+v, %v", r, err)
	}
	if r, err := fetch("GET", "/redirect-in", ""); err != nil || r.Status != 418 || r.URL != main.URL+"/echo" {
		t.Errorf("a redirect among the allowed hosts = %+v, %v; want it followed", r, err)
	}
	_, err = fetch("GET", "/redirect-out", "")
	var hn *host.HostNotAllowedError
	if !errors.As(err, &hn) || !hn.Redirect || !strings.Contains(err.Error(), "may not follow a redirect to "+other.URL) {
		t.Errorf("a redirect to another port = %v; want a *host.HostNotAllowedError", err)
	}
	if other.hits.Load() != 0 {
		t.Errorf("the redirect's target was contacted")
	}
	if _, err := fetch("GET", "/loop", ""); err == nil || !strings.Contains(err.Error(), "stopped after 10 redirects") {
		t.Errorf("a redirect loop = %v", err)
	}
	if _, err := fetch("GET", "/big", ""); err == nil || !strings.Contains(err.Error(), "larger than 1000 bytes") {
		t.Errorf("a body over the cap = %v; want an error", err)
	}
	// The timeout, not load, decides: no sooner than 1 s, and before the
	// server answers.
	start := time.Now()
	r, err = fetch("GET", "/slow", "")
	var ne net.Error
	if took := time.Since(start); !errors.As(err, &ne) || !ne.Timeout() || took < time.Second {
		t.Errorf("a slow server = %q, %v after %v; want a timeout after the 1s timeout, before the server's answer", r.Body, err, took)
	}
	// The broker checks the first URL too.
	if _, err := b.Fetch(t.Context(), host.FetchRequest{URL: mustURL(t, other.URL), AllowedHosts: allowed}); !errors.As(err, &hn) || other.hits.Load() != 0 {
		t.Errorf("a URL outside the list = %v", err)
	}
}

// TestNoProxyFromEnvironment: HTTP_PROXY does not reroute the broker.
func TestNoProxyFromEnvironment(t *testing.T) {
	proxy := newServer(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("proxied")) })
	target := newServer(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("direct")) })
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	t.Setenv("NO_PROXY", "")
	r, err := netbroker.New(netbroker.Options{}).Fetch(t.Context(), host.FetchRequest{URL: mustURL(t, target.URL), AllowedHosts: []string{target.hostPort()}})
	if err != nil || string(r.Body) != "direct" || proxy.hits.Load() != 0 {
		t.Errorf("fetch with HTTP_PROXY set = %q, %v (proxy hits %d); want it direct", r.Body, err, proxy.hits.Load())
	}
}

// TestHostEndToEnd: an extension granted network reaches a listed
// loopback server through fetch, the launcher's broker and this package,
// and nothing else; every request is audited.
func TestHostEndToEnd(t *testing.T) {
	citool.Need(t, "node")
	other := newServer(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("other")) })
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/away" {
			http.Redirect(w, r, other.URL+"/", http.StatusFound)
			return
		}
		w.Header().Set("X-Served", "yes")
		w.Write([]byte("hello " + r.Method))
	})
	root := t.TempDir()
	dir := filepath.Join(root, "ext")
	exttest.Write(t, dir, "fetcher", `const vscode = require('vscode');
exports.activate = (ctx) => { ctx.subscriptions.push(vscode.commands.registerCommand('t.fetch', async (u) => {
  try { const r = await fetch(u); return { status: r.status, body: await r.text(), served: r.headers.get('x-served') }; }
  catch (err) { return { error: err.message, code: err.code }; }
})); };
`)
	var audits atomic.Int64
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	h, err := host.Launch(ctx, host.Options{
		Extensions: []host.Extension{{ID: "t.fetcher", Path: dir, Main: "./extension.js", ActivationEvents: []string{"onCommand:t.fetch"},
			Capabilities: []string{"network"}, AllowedHosts: []string{srv.hostPort()}}},
		StorageDir: filepath.Join(root, "storage"),
		Fetch:      netbroker.New(netbroker.Options{}),
		Audit:      func(host.Audit) { audits.Add(1) },
	})
	if err != nil {
		t.Fatalf("Launch: %v", err)
	}
	defer h.Close(context.Background())
	type out struct {
		Status       int
		Body, Served string
		Error, Code  string
	}
	call := func(u string) (out, []host.Event) {
		r, err := h.ExecuteCommand(ctx, "t.fetch", u)
		if err != nil {
			t.Fatalf("ExecuteCommand: %v", err)
		}
		var o out
		if err := json.Unmarshal(r.Value, &o); err != nil {
			t.Fatal(err)
		}
		var ev []host.Event
		for _, e := range r.Events {
			if e.Kind == host.KindAudit {
				ev = append(ev, e)
			}
		}
		return o, ev
	}
	if o, ev := call(srv.URL + "/x"); o.Status != 200 || o.Body != "hello GET" || o.Served != "yes" || len(ev) != 1 || ev[0].Level != "allowed" || ev[0].Audit.Details.Status != 200 {
		t.Errorf("fetch of the listed server = %+v, audit %+v", o, ev)
	}
	for _, u := range []string{other.URL + "/", "http://example.invalid/", srv.URL + "/away"} {
		o, ev := call(u)
		if o.Code != "ERR_AIRVSX_DENIED" || !strings.Contains(o.Error, "t.fetcher may not") || !strings.Contains(o.Error, srv.hostPort()) {
			t.Errorf("fetch %s = %+v; want a refusal naming the allowed hosts", u, o)
		}
		if len(ev) != 1 || ev[0].Level != "denied" || ev[0].Extension != "t.fetcher" {
			t.Errorf("fetch %s: audit events %+v; want one denial", u, ev)
		}
	}
	if other.hits.Load() != 0 {
		t.Errorf("the server that is not listed was contacted %d times", other.hits.Load())
	}
	if audits.Load() != 4 {
		t.Errorf("Options.Audit got %d records; want 4", audits.Load())
	}
}
