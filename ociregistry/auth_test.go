package ociregistry_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/internal/ocitest"
	"github.com/airvsx/airvsx/ociregistry"
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
			s := reg.open(t, ociregistry.Options{})
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
				if !errors.Is(err, ociregistry.ErrUnauthorized) {
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
