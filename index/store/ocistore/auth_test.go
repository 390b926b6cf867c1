package ocistore_test

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/ocistore"
	"github.com/airvsx/airvsx/testkit/ocitest"
)

// TestAuth: a registry that asks for credentials (htpasswd) is written and
// read with those of the docker configuration (DOCKER_CONFIG, as docker
// login leaves them; authn.DefaultKeychain); without them, or with a
// wrong password, every request fails saying which registry refused and
// what to do.
func TestAuth(t *testing.T) {
	r := ocitest.Run(t, ocitest.Options{Users: map[string]string{"mirror": "s3cret-pass"}})
	reg := &testRegistry{r, r.Host}
	config := func(t *testing.T, user, password string) string {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "docker")
		if user == "" {
			return dir // no config.json at all
		}
		if _, err := ocitest.DockerConfig(dir, r.Host, user, password); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	blob := []byte("a blob behind credentials")
	digest := index.DigestBytes(blob)
	for _, tc := range []struct {
		name, user, password string
		ok                   bool
	}{
		{"the credentials in the docker configuration", "mirror", "s3cret-pass", true},
		{"no credentials", "", "", false},
		{"a wrong password", "mirror", "wrong", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("DOCKER_CONFIG", config(t, tc.user, tc.password))
			s := reg.open(t, ocistore.Options{})
			ctx := t.Context()
			accessErr := s.CheckAccess(ctx)
			putErr := s.PutBlob(ctx, "ns/ext", digest, int64(len(blob)), store.BytesContent(blob))
			_, statErr := s.StatBlob(ctx, "ns/ext", digest)
			_, metaErr := s.ReadMetadata(ctx, "timestamp.json", 1<<20)
			if tc.ok {
				if accessErr != nil || putErr != nil || statErr != nil {
					t.Fatalf("with the credentials: access: %v; put: %v; stat: %v", accessErr, putErr, statErr)
				}
				return
			}
			for what, err := range map[string]error{"check access": accessErr, "put": putErr, "stat": statErr, "read metadata": metaErr} {
				if !errors.Is(err, ocistore.ErrUnauthorized) {
					t.Errorf("%s without valid credentials: %v; want an error wrapping ErrUnauthorized", what, err)
					continue
				}
				msg := err.Error()
				for _, want := range []string{r.Host, "credentials", "docker login " + r.Host} {
					if !strings.Contains(msg, want) {
						t.Errorf("%s: the error does not say %q: %v", what, want, err)
					}
				}
			}
		})
	}
}

// TestBearerTokenPerRepository: a registry with a bearer token service
// (most hosted ones) gets a token per repository, scoped to it, and every
// request of a repository carries that repository's token; the ping that
// finds the challenge is not repeated for a registry without one (see
// TestAuth's, basic).
func TestBearerTokenPerRepository(t *testing.T) {
	var mu sync.Mutex
	scopes := map[string]int{} // token scope → tokens issued
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/token":
			scope := r.URL.Query().Get("scope")
			mu.Lock()
			scopes[scope]++
			mu.Unlock()
			json.NewEncoder(w).Encode(map[string]string{"token": "t|" + scope})
			return
		case r.URL.Path == "/v2/":
			if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
				w.Header().Set("WWW-Authenticate", `Bearer realm="`+srv.URL+`/token",service="test"`)
				w.WriteHeader(http.StatusUnauthorized)
			}
			return
		}
		// /v2/<repo>/{blobs,manifests}/<digest>: the token must be this
		// repository's.
		repo, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/v2/"), "/blobs/")
		repo, _, _ = strings.Cut(repo, "/manifests/")
		if r.Header.Get("Authorization") != "Bearer t|repository:"+repo+":pull" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="`+srv.URL+`/token",service="test",scope="repository:`+repo+`:pull"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNotFound)
	}))
	defer srv.Close()
	s := openInsecure(t, srv.Listener.Addr().String(), "pre", ocistore.Options{ReadOnly: true, Keychain: authn.NewMultiKeychain(), Retries: -1})
	digest := index.DigestBytes([]byte("absent"))
	for _, repo := range []string{"a/one", "b/two", "a/one"} {
		if _, err := s.StatBlob(t.Context(), repo, digest); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("stat in %s: %v; want fs.ErrNotExist (the request made with the repository's token)", repo, err)
		}
	}
	want := map[string]int{"repository:pre/a/one:pull": 1, "repository:pre/b/two:pull": 1}
	mu.Lock()
	defer mu.Unlock()
	if !maps.Equal(scopes, want) {
		t.Errorf("tokens issued per scope: %v; want %v", scopes, want)
	}
}

// TestAlsoDial: a registry whose token service is on another host (here
// the same loopback server named "localhost", not the registry's
// 127.0.0.1) is refused, naming --also-dial, until that host is named in
// AlsoDial; a blob download redirected to blob storage there likewise,
// and the registry's token is not sent there.
func TestAlsoDial(t *testing.T) {
	blob := []byte("stored elsewhere")
	digest := index.DigestBytes(blob)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/token":
			json.NewEncoder(w).Encode(map[string]string{"token": "t"})
		case "/storage/blob":
			if r.Header.Get("Authorization") != "" {
				t.Errorf("the registry's credentials were sent to blob storage on another host")
			}
			w.Write(blob)
		default:
			http.NotFound(w, r)
		}
	}))
	defer other.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(other.URL, "http://"))
	otherHost := net.JoinHostPort("localhost", port)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="http://`+otherHost+`/token",service="test"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/blobs/"+digest) {
			http.Redirect(w, r, "http://"+otherHost+"/storage/blob", http.StatusTemporaryRedirect)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	open := func(also ...string) *ocistore.Store {
		return openInsecure(t, srv.Listener.Addr().String(), "pre", ocistore.Options{ReadOnly: true, AlsoDial: also, Keychain: authn.NewMultiKeychain(), Retries: -1})
	}
	for _, also := range [][]string{nil, {"127.0.0.3"}, {"localhost:1"}} {
		if _, err := open(also...).StatBlob(t.Context(), "a/b", digest); err == nil || !strings.Contains(err.Error(), "--also-dial") {
			t.Errorf("token service on another host, AlsoDial %v: %v; want a refusal naming --also-dial", also, err)
		}
	}
	for _, also := range []string{otherHost, "localhost", "LOCALHOST"} {
		rc, err := open(also).OpenBlob(t.Context(), "a/b", digest, int64(len(blob)))
		if err != nil {
			t.Errorf("AlsoDial %s: %v", also, err)
			continue
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || string(got) != string(blob) {
			t.Errorf("AlsoDial %s: read %q, %v; want %q", also, got, err, blob)
		}
	}
	p, err := store.ParsePlace("docker://" + srv.Listener.Addr().String() + "/pre")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ocistore.Open(t.Context(), p, ocistore.Options{AlsoDial: []string{"https://x"}}); err == nil {
		t.Error("AlsoDial with a URL: no error; want HOST or HOST:PORT")
	}
}
