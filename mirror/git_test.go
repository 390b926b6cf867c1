package mirror_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index/store/gitstore"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/mirror"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/gittest"
	"github.com/airvsx/airvsx/testkit/openvsxtest"
)

// syncGit syncs the demo policy into the git registry at path, its commit
// signed by signer.
func (e *env) syncGit(t *testing.T, path string, signer signature.Signer) error {
	t.Helper()
	st, err := gitstore.Open(path, gitstore.Options{Write: true, Create: true, Signer: signer})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = mirror.Sync(t.Context(), mirror.Options{
		Client: e.client, Policy: demoreg.Policy(t), Store: st, Signer: e.signer,
		Now: func() time.Time { return demoreg.SyncNow1 }, TempDir: t.TempDir(),
	})
	return err
}

// TestSyncRefusesForeignTip: a sync into a git registry whose branch ends
// in a commit the registry's key did not sign (not signed at all, or by
// another key) refuses to sign over it, naming the commit, and leaves
// the branch where it was.
func TestSyncRefusesForeignTip(t *testing.T) {
	for _, tc := range []struct {
		name string
		add  func(t *testing.T, path string) plumbing.Hash
	}{
		{"unsigned", func(t *testing.T, path string) plumbing.Hash {
			return gittest.CommitOnTop(t, path, map[string][]byte{"hooks/post-checkout": []byte("#!/bin/sh\n")})
		}},
		{"signed by another key", func(t *testing.T, path string) plumbing.Hash {
			other, _ := demoreg.Signer(t, t.TempDir(), "other")
			return gittest.SignedOnTop(t, path, other)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, openvsxtest.Options{})
			path := filepath.Join(t.TempDir(), "reg.git")
			if err := e.syncGit(t, path, e.signer); err != nil {
				t.Fatal(err)
			}
			bad := tc.add(t, path)
			err := e.syncGit(t, path, e.signer)
			if !errors.Is(err, trust.ErrHistorySignature) || !strings.Contains(err.Error(), bad.String()) {
				t.Fatalf("Sync = %v; want ErrHistorySignature naming commit %s", err, bad)
			}
			st, err := gitstore.Open(path, gitstore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if st.Head() != bad {
				t.Errorf("branch at %s; want it left at %s", st.Head(), bad)
			}
		})
	}
}
