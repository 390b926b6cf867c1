package gitstore_test

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index/store/gitstore"
	"github.com/airvsx/airvsx/testkit/signtest"
)

// TestRefs opens a registry of two commits at every kind of ref: readers
// take HEAD, branches, tags (lightweight and annotated) and commit IDs;
// writers take a branch only.
func TestRefs(t *testing.T) {
	needGit(t)
	path := filepath.Join(t.TempDir(), "reg.git")
	s := openWriter(t, path, signtest.Signer(t))
	commitChange(t, s, "1.0.0", "one")
	first := s.Revision()
	commitChange(t, s, "2.0.0", "two")
	second := s.Revision()
	s.Close()
	git(t, path, "tag", "light", first)
	git(t, path, "-c", "user.name=x", "-c", "user.email=x@example.com", "tag", "-a", "-m", "annotated", "heavy", first)
	git(t, path, "branch", "old", first)

	tests := []struct {
		ref     string
		write   bool
		want    string // the commit read; "" when Open must fail
		wantErr error
	}{
		{"", false, second, nil},
		{"HEAD", false, second, nil},
		{"main", false, second, nil},
		{"refs/heads/main", false, second, nil},
		{"old", false, first, nil},
		{"light", false, first, nil},
		{"heavy", false, first, nil},
		{"refs/tags/heavy", false, first, nil},
		{first, false, first, nil},
		{"nope", false, "", fs.ErrNotExist},
		{strings.Repeat("0", 39), false, "", fs.ErrNotExist},
		{"", true, second, nil},
		{"old", true, first, nil},
		{"light", true, "", nil},
		{"heavy", true, "", nil},
		{first, true, "", nil},
	}
	for _, tt := range tests {
		name := tt.ref
		if tt.write {
			name += "/write"
		}
		t.Run(name, func(t *testing.T) {
			s, err := gitstore.Open(path, gitstore.Options{Ref: tt.ref, Write: tt.write})
			if tt.want == "" {
				if err == nil {
					s.Close()
					t.Fatalf("Open(ref %q, write %v) = nil error; want one", tt.ref, tt.write)
				}
				if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
					t.Errorf("Open(ref %q) = %v; want %v", tt.ref, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open(ref %q, write %v) = %v", tt.ref, tt.write, err)
			}
			defer s.Close()
			if got := s.Revision(); got != tt.want {
				t.Errorf("Open(ref %q).Revision() = %s; want %s", tt.ref, got, tt.want)
			}
		})
	}

	// A detached HEAD: readers read it, writers refuse it.
	git(t, path, "update-ref", "--no-deref", "HEAD", first)
	if r, err := gitstore.Open(path, gitstore.Options{}); err != nil || r.Revision() != first {
		t.Errorf("reader at a detached HEAD: %v", err)
	} else {
		r.Close()
	}
	if w, err := gitstore.Open(path, gitstore.Options{Write: true}); err == nil || !strings.Contains(err.Error(), "detached") {
		t.Errorf("writer at a detached HEAD = %v; want an error saying HEAD is detached", err)
		if err == nil {
			w.Close()
		}
	}
}

// TestIdentity: commits carry git's configured user.name and user.email,
// else the options', else the fixed airvsx identity.
func TestIdentity(t *testing.T) {
	needGit(t)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	tests := []struct {
		name   string
		config string
		opts   gitstore.Options
		want   string
	}{
		{"fixed", "", gitstore.Options{}, "airvsx <airvsx@localhost>"},
		{"repository config", "[user]\n\tname = Operator One\n\temail = op@example.com\n", gitstore.Options{}, "Operator One <op@example.com>"},
		{"options first", "[user]\n\tname = Operator One\n", gitstore.Options{Name: "Given", Email: "given@example.com"}, "Given <given@example.com>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "reg.git")
			opts := tt.opts
			opts.Write, opts.Create, opts.Signer = true, true, signtest.Signer(t)
			s, err := gitstore.Open(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if tt.config != "" {
				appendFile(t, filepath.Join(path, "config"), tt.config)
			}
			commitChange(t, s, "1.0.0", "m")
			if got := strings.TrimSpace(git(t, path, "log", "-1", "--format=%an <%ae>|%cn <%ce>")); got != tt.want+"|"+tt.want {
				t.Errorf("author|committer = %q; want %q for both", got, tt.want)
			}
		})
	}
}
