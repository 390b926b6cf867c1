package verify_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	gocmp "github.com/google/go-cmp/cmp"
	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/gitstore"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/testkit/gittest"
	"github.com/airvsx/airvsx/verify"
	"github.com/airvsx/airvsx/verify/verifytest"
)

// gitFromDir commits the directory registry dir, as it is (damage
// included), into a new bare git repository signed by signer, on top of
// the commit of parentDir when that is not "" (so the repository has a
// history), and returns the repository's path.
func gitFromDir(t *testing.T, signer signature.Signer, dirs ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "reg.git")
	for _, dir := range dirs {
		gittest.CommitDir(t, path, signer, dir, "import "+filepath.Base(dir))
	}
	return path
}

// openGit opens the git registry at path read-only.
func openGit(t *testing.T, path string) *gitstore.Store {
	t.Helper()
	s, err := gitstore.Open(path, gitstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// historyRule reports whether a problem is about the git history, which
// only a git store shows.
func historyRule(r verify.Rule) bool {
	return r == verify.RuleHistorySignature || r == verify.RuleHistoryRewound
}

// checkOnGit verifies the damaged registry in dir again through a git
// store holding the same tree in a signed commit, and checks it finds
// what the directory run found, files the layout has no place for too
// (a git store's tree is walked as a directory is), history problems
// aside: a case that swaps the anchor also fails the commit's signature
// check, rightly.
func checkOnGit(t *testing.T, dir string, o verify.RegistryOptions, dirRep *verify.Report) {
	t.Helper()
	o.Store = openGit(t, gitFromDir(t, base(t).Signer, dir))
	rep, err := verify.Registry(t.Context(), o)
	if err != nil {
		t.Fatalf("Registry(git): %v", err)
	}
	var got []finding
	for _, f := range findings(rep, false) {
		if !historyRule(f.Rule) {
			got = append(got, f)
		}
	}
	if diff := gocmp.Diff(findings(dirRep, false), got); diff != "" {
		t.Errorf("verifying through a git store found other problems than through the directory (-dir +git):\n%s", diff)
	}
	if rep.OK() && !dirRep.OK() {
		onlyDir := true
		for _, p := range dirRep.Errors() {
			onlyDir = onlyDir && dirOnly(p)
		}
		if !onlyDir {
			t.Errorf("verifying through a git store passed the damaged registry")
		}
	}
}

// TestGitCleanRegistry: the fixture registry committed into git verifies
// with no problem, in root and key mode, and records the commit.
func TestGitCleanRegistry(t *testing.T) {
	path := gitFromDir(t, base(t).Signer, base(t).Dir1, base(t).Dir)
	for _, mode := range []string{"root", "key"} {
		t.Run(mode, func(t *testing.T) {
			o := regOpts(t, base(t).Dir)
			if mode == "key" {
				useKey(t, &o, base(t).PubPath)
			}
			o.State = trust.OpenStateDir(t.TempDir())
			s := openGit(t, path)
			o.Store = s
			rep, err := verify.Registry(t.Context(), o)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.OK() || len(rep.Problems) != 0 {
				t.Fatalf("problems in a clean git registry:\n%s", verifytest.ProblemList(rep))
			}
			if rep.Trust.Revision != s.Revision() || !rep.Trust.Recorded {
				t.Errorf("trust revision %q, recorded %v; want %s, recorded", rep.Trust.Revision, rep.Trust.Recorded, s.Revision())
			}
		})
	}
}

// TestGitTamper runs the damage only a git registry can carry: a commit
// on top not signed at all, one signed by another key, a branch rewound
// to an older commit, a history rewritten with the same tree, and a blob
// object changed in place.
func TestGitTamper(t *testing.T) {
	type gitCase struct {
		name string
		// setup damages the repository at path, which the state has
		// recorded at its head, and returns what verify must report.
		setup func(t *testing.T, path string) []want
	}
	signer := base(t).Signer
	cases := []gitCase{
		{"unsigned commit on top", func(t *testing.T, path string) []want {
			gitCmd(t, path, "-c", "user.name=x", "-c", "user.email=x@example.com", "commit-tree", "-p", "HEAD", "-m", "not signed", "HEAD^{tree}")
			return []want{{verify.RuleHistorySignature, "commit ", ""}}
		}},
		{"commit on top signed by another key", func(t *testing.T, path string) []want {
			gittest.SignedOnTop(t, path, base(t).Other)
			return []want{{verify.RuleHistorySignature, "commit ", ""}}
		}},
		{"branch rewound to an older commit", func(t *testing.T, path string) []want {
			s := openGit(t, path)
			c := parentOf(t, path, s.Revision())
			writeRef(t, path, c)
			return []want{{verify.RuleHistoryRewound, "commit " + c, ""}, {verify.RuleTrustRollback, "metadata/", ""}}
		}},
		{"history rewritten with the same tree (signed)", func(t *testing.T, path string) []want {
			other := gitFromDir(t, signer, base(t).Dir)
			// The other repository's single commit, with no parent, in
			// this one: copy its objects and point the branch at it.
			copyObjects(t, other, path)
			c := openGit(t, other).Revision()
			writeRef(t, path, c)
			return []want{{verify.RuleHistoryRewound, "commit " + c, ""}}
		}},
		{"blob object changed in place", func(t *testing.T, path string) []want {
			vsix := readBlob(t, base(t).Dir, hello, artifact.RoleVsix)
			gittest.TamperLoose(t, path, plumbing.ComputeHash(plumbing.BlobObject, vsix))
			return []want{{verify.RuleBlobDigest, "extensions/airvsx-demo/hello-command/", hello}}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(tc.name, "unsigned") {
				needGitBinary(t)
			}
			path := gitFromDir(t, signer, base(t).Dir1, base(t).Dir)
			o := regOpts(t, base(t).Dir)
			o.State = trust.OpenStateDir(t.TempDir())
			o.Store = openGit(t, path)
			if rep, err := verify.Registry(t.Context(), o); err != nil || !rep.OK() {
				t.Fatalf("the clean repository: %v\n%s", err, verifytest.ProblemList(rep))
			}
			wants := tc.setup(t, path)
			o.Store = openGit(t, path)
			rep, err := verify.Registry(t.Context(), o)
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK() {
				t.Fatalf("verify passed a damaged git registry")
			}
			checkWants(t, rep, wants)
		})
	}
}

func needGitBinary(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("stock git is not on PATH: this case makes an unsigned commit with it")
	}
}

// gitCmd runs stock git on the repository at path and, for commit-tree,
// points the branch at the commit made.
func gitCmd(t *testing.T, path string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir", path}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	writeRef(t, path, strings.TrimSpace(string(out)))
}

// writeRef points refs/heads/main at commit c, behind the store's back.
func writeRef(t *testing.T, path, c string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(path, "refs", "heads", "main"), []byte(c+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// parentOf returns the first parent of commit c.
func parentOf(t *testing.T, path, c string) string {
	t.Helper()
	s, err := gitstore.Open(path, gitstore.Options{Ref: c})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := s.Parent()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var _ store.History = (*gitstore.Store)(nil)

// copyObjects copies the loose objects of the repository from into to.
func copyObjects(t *testing.T, from, to string) {
	t.Helper()
	src := filepath.Join(from, "objects")
	err := filepath.WalkDir(src, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(to, "objects", rel)
		if _, err := os.Stat(dst); err == nil {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		os.MkdirAll(filepath.Dir(dst), 0o755)
		return os.WriteFile(dst, b, 0o444)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGitStrayTreePaths: a signed commit whose tree holds paths outside
// the layout a registry writes (a script at the top, a folder of its
// own, a file in extensions/ that is no repository, one inside a
// repository) is reported, each path a warning, as in a directory
// registry: what a sync signed over is not silently part of the registry.
func TestGitStrayTreePaths(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "reg")
	filetest.CopyDir(t, base(t).Dir, dir)
	stray := []string{"install.sh", "tools/run.js", "extensions/README", "extensions/airvsx-demo/hello-command/postinstall.sh"}
	for _, p := range stray {
		name := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		filetest.WriteFile(t, name, []byte("#!/bin/sh\n"))
	}
	o := regOpts(t, base(t).Dir)
	o.Store = openGit(t, gitFromDir(t, base(t).Signer, dir))
	rep, err := verify.Registry(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Errorf("stray paths are warnings, not errors:\n%s", verifytest.ProblemList(rep))
	}
	for _, p := range []string{"install.sh", "tools", "extensions/README", "extensions/airvsx-demo/hello-command/postinstall.sh"} {
		if !hasWarning(rep, want{verify.RuleExtraFile, p, ""}) {
			t.Errorf("no %s warning for %s; got:\n%s", verify.RuleExtraFile, p, verifytest.ProblemList(rep))
		}
	}
}
