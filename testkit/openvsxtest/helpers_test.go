package openvsxtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/testkit/collect"
	"github.com/airvsx/airvsx/testkit/filetest"
)

// noRedirect is a client that returns redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}}

// get fetches url (following redirects) and returns status and body.
func get(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read body: %v", url, err)
	}
	return resp.StatusCode, b
}

// getJSON fetches url, wants 200 and decodes the body into a generic value.
func getJSON(t *testing.T, url string) map[string]any {
	t.Helper()
	status, b := get(t, url)
	if status != http.StatusOK {
		t.Fatalf("GET %s: status %d, body %s", url, status, b)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return v
}

// files returns the "files" object of an ExtensionJson.
func files(t *testing.T, j map[string]any) map[string]string {
	t.Helper()
	m, ok := j["files"].(map[string]any)
	if !ok {
		t.Fatalf("files is %T, want an object", j["files"])
	}
	out := map[string]string{}
	for k, v := range m {
		out[k] = v.(string)
	}
	return out
}

// golden returns the content of testdata/<name>.golden, the expected
// response, after replacing it with got when UPDATE_GOLDEN is set.
func golden(t *testing.T, name string, got []byte) []byte {
	t.Helper()
	file := filepath.Join("testdata", name+".golden")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		filetest.WriteFile(t, file, got)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with UPDATE_GOLDEN=1 to create it)", err)
	}
	return b
}

// fakeTB records Errorf and Fatalf instead of failing, to observe what the
// server reports for requests it has no fixture for.
type fakeTB struct {
	testing.TB // nil: methods not overridden panic
	errors     collect.List[string]
	cleanups   []func()
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Errorf(format string, args ...any) {
	f.errors.Add(fmt.Sprintf(format, args...))
}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	panic("fakeTB.Fatalf: " + fmt.Sprintf(format, args...))
}

func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }

func (f *fakeTB) Errors() []string { return f.errors.All() }

func (f *fakeTB) close() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

// newFake starts a server reporting to a fakeTB.
func newFake(t *testing.T, opts Options) (*Server, *fakeTB) {
	t.Helper()
	f := &fakeTB{}
	s := New(f, opts)
	t.Cleanup(f.close)
	return s, f
}

// relative replaces the server's base URL with "{base}" throughout v.
func relative(v any, base string) any {
	switch x := v.(type) {
	case string:
		return strings.ReplaceAll(x, base, "{base}")
	case []any:
		for i := range x {
			x[i] = relative(x[i], base)
		}
	case map[string]any:
		for k := range x {
			x[k] = relative(x[k], base)
		}
	}
	return v
}
