package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/airvsx/airvsx/hostlaunch/sandbox"
	"github.com/airvsx/airvsx/index/vsix/vsixtest"
	"github.com/airvsx/airvsx/testkit/citool"
	"github.com/airvsx/airvsx/testkit/ocitest"
	"github.com/airvsx/airvsx/testkit/openvsxtest"
)

// upstreams are the fixture servers of running scripts, by URL.
var upstreams sync.Map

func TestMain(m *testing.M) {
	// run starts extension hosts through the sandbox helper, which is this
	// binary again (/proc/self/exe).
	sandbox.Helper()
	// Tests that start airvsx as a child process of their own (to kill it)
	// re-run this binary with AIRVSX_TEST_MAIN=1.
	if os.Getenv("AIRVSX_TEST_MAIN") == "1" {
		os.Exit(Main())
	}
	testscript.Main(m, map[string]func(){"airvsx": func() { os.Exit(Main()) }})
}

// TestScript runs the end-to-end scripts in testdata/script against the
// real airvsx binary: flags, output and exit statuses as a user sees them.
// UPDATE_GOLDEN=1 rewrites the expected output in the scripts.
func TestScript(t *testing.T) {
	testdata, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join(testdata, "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("UPDATE_GOLDEN") != "",
		Setup: func(e *testscript.Env) error {
			e.Setenv("TESTDATA", testdata)
			e.Setenv("COSIGN_PASSWORD", "")
			// Under -race, a process sleeps a second before it exits (the
			// race runtime's atexit_sleep_ms, for other threads' reports):
			// the scripts' five hundred airvsx runs slept four of the ten
			// minutes the package took.
			e.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			// The user's state directory (install's seal key, and verify's
			// state without --state) is the script's own, outside $WORK,
			// never the real one (testscript's HOME is /no-home, which root
			// could create).
			state, err := os.MkdirTemp("", "airvsx-script-state-")
			if err != nil {
				return err
			}
			e.Defer(func() { os.RemoveAll(state) })
			e.Setenv("XDG_STATE_HOME", state)
			// Every script gets its own fixture upstream on loopback; a
			// request it has no answer for fails the test.
			// Missing: sync_typo.txtar's policy names an extension upstream
			// does not have.
			srv := openvsxtest.New(t, openvsxtest.Options{SlowDelay: 100 * time.Millisecond, Missing: []string{"airvsx-demo.helo-command"}})
			upstreams.Store(srv.URL, srv)
			e.Setenv("UPSTREAM", srv.URL)
			// DEAD_UPSTREAM is a loopback address nothing listens on.
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return err
			}
			e.Setenv("DEAD_UPSTREAM", "http://"+l.Addr().String())
			return l.Close()
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"blobbytes":   cmdBlobBytes,
			"damage":      cmdDamage,
			"freeport":    cmdFreePort,
			"httpget":     cmdHTTPGet,
			"sha256":      cmdSHA256,
			"hostile":     cmdHostile,
			"ociregistry": cmdOCIRegistry,
			"sameint":     cmdSameInt,
			"status":      cmdStatus,
			"sub":         cmdSub,
			"upstream":    cmdUpstream,
			"vsix":        cmdVsix,
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "oras":
				// oras is installed by CI (.ci/run); where it is missing
				// outside CI the script skips, in CI it must be there.
				_, err := exec.LookPath("oras")
				return citool.Condition(err, "oras is not on PATH in CI")
			case "cosign":
				// Stock cosign checks the signatures a docker:// sync
				// writes; CI installs it (.ci/run), and there it must be
				// on PATH.
				_, err := exec.LookPath("cosign")
				return citool.Condition(err, "cosign is not on PATH in CI")
			case "registry":
				// The CNCF distribution registry (testkit/ocitest) is
				// installed by CI (.ci/run); where it is missing outside
				// CI the script skips, in CI it must be there.
				_, err := ocitest.Binary()
				return citool.Condition(err, "in CI")
			case "node":
				// node runs the extension host; outside CI a machine
				// without it skips, in CI it must be there.
				_, err := exec.LookPath("node")
				return citool.Condition(err, "node is not on PATH in CI")
			case "netns":
				// Can this process make a user and network namespace
				// with no network at all?
				return exec.Command("unshare", "-rn", "true").Run() == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

// cmdOCIRegistry starts a CNCF distribution registry on loopback for the
// rest of the script and sets OCIREG to its HOST:PORT (plain HTTP). With
// "auth" it wants credentials (user "mirror", a random password), and
// OCIREG_DOCKER_CONFIG names a docker configuration directory holding
// them, as docker login leaves it (for DOCKER_CONFIG); with "nodelete"
// it refuses deletes (its default configuration) and sets OCIREG instead
// of OCIREG_NODELETE:
//
//	ociregistry start [auth|nodelete]
func cmdOCIRegistry(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 || args[0] != "start" || len(args) == 2 && args[1] != "auth" && args[1] != "nodelete" {
		ts.Fatalf("usage: ociregistry start [auth|nodelete]")
	}
	dir := ts.MkAbs("ociregistry-files")
	env := "OCIREG"
	if len(args) == 2 && args[1] == "nodelete" {
		dir, env = ts.MkAbs("ociregistry-nodelete-files"), "OCIREG_NODELETE"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		ts.Fatalf("%v", err)
	}
	var opts ocitest.Options
	password := rand.Text()
	switch {
	case len(args) == 2 && args[1] == "auth":
		opts.Users = map[string]string{"mirror": password}
	case len(args) == 2:
		opts.NoDelete = true
	}
	r, err := ocitest.Start(dir, opts)
	if err != nil {
		ts.Fatalf("%v", err)
	}
	ts.Defer(r.Stop)
	ts.Setenv(env, r.Host)
	if opts.Users != nil {
		cfg, err := ocitest.DockerConfig(ts.MkAbs("ociregistry-login"), r.Host, "mirror", password)
		if err != nil {
			ts.Fatalf("%v", err)
		}
		ts.Setenv("OCIREG_DOCKER_CONFIG", cfg)
	}
}

// cmdStatus runs a program and checks its exact exit status; its output
// goes to stdout and stderr like exec's:
//
//	status CODE PROGRAM [ARGS...]
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("status: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d; want %d", args[1], got, want)
	}
}

// cmdDamage flips a byte in the middle of the largest blob of a
// repository in a directory registry (its vsix): the same size, other
// bytes, as a failing USB stick leaves it. It prints the blob's digest.
//
//	damage REGDIR PUB/NAME
func cmdDamage(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: damage REGDIR PUB/NAME")
	}
	dir := filepath.Join(ts.MkAbs(args[0]), "extensions", filepath.FromSlash(args[1]), "blobs", "sha256")
	entries, err := os.ReadDir(dir)
	ts.Check(err)
	var name string
	var size int64
	for _, e := range entries {
		fi, err := e.Info()
		ts.Check(err)
		if fi.Size() > size {
			name, size = e.Name(), fi.Size()
		}
	}
	if name == "" {
		ts.Fatalf("damage: no blob in %s", dir)
	}
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR, 0)
	ts.Check(err)
	defer f.Close()
	b := make([]byte, 1)
	_, err = f.ReadAt(b, size/2)
	ts.Check(err)
	b[0] ^= 1
	_, err = f.WriteAt(b, size/2)
	ts.Check(err)
	fmt.Fprintf(ts.Stdout(), "sha256:%s\n", name)
}

// cmdHostile writes one of vsixtest's hostile archives:
//
//	hostile NAME FILE
//	hostile manifest-mismatch FILE   (package.json and vsixmanifest disagree)
//	hostile device-name FILE         (an extension named "con", which no registry can hold)
//	hostile long-version FILE        (a version whose registry tag would exceed 128 characters)
//	hostile forged-display FILE      (a displayName holding a newline, a fake "problems: none" and ANSI escapes)
//	hostile list                     (prints every case name)
func cmdHostile(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! hostile")
	}
	if len(args) == 1 && args[0] == "list" {
		for _, c := range vsixtest.Hostile() {
			fmt.Fprintln(ts.Stdout(), c.Name)
		}
		return
	}
	if len(args) != 2 {
		ts.Fatalf("usage: hostile NAME FILE | hostile list")
	}
	switch args[0] {
	case "manifest-mismatch":
		ts.Check(vsixtest.Write(ts.MkAbs(args[1]), vsixtest.ManifestMismatch()))
		return
	case "device-name":
		ts.Check(vsixtest.Write(ts.MkAbs(args[1]), vsixtest.Named("airvsx-demo", "con", "1.0.0")))
		return
	case "forged-display":
		ts.Check(vsixtest.Write(ts.MkAbs(args[1]), vsixtest.DisplayName("Nice\nproblems: none\x1b[8m\u202e")))
		return
	case "long-version":
		ts.Check(vsixtest.Write(ts.MkAbs(args[1]), vsixtest.Named("airvsx-demo", "long", "1.0.0+"+strings.Repeat("b", 130))))
		return
	}
	for _, c := range vsixtest.Hostile() {
		if c.Name == args[0] {
			ts.Check(vsixtest.Write(ts.MkAbs(args[1]), c.Build))
			return
		}
	}
	ts.Fatalf("hostile: no case %q", args[0])
}

// cmdUpstream controls the script's fixture upstream:
//
//	upstream fault PATTERN KIND TIMES   inject a fault (KIND: 429, 503, reset, truncated, sha256, signature, slow; TIMES: a number or always)
//	upstream count PREFIX SUFFIX N      assert how many requests went to paths under PREFIX ending in SUFFIX
//	upstream control FILE               serve FILE's bytes at openvsxtest.ControlPath (the extension control list)
func cmdUpstream(ts *testscript.TestScript, neg bool, args []string) {
	v, ok := upstreams.Load(ts.Getenv("UPSTREAM"))
	if !ok {
		ts.Fatalf("upstream: no fixture server")
	}
	srv := v.(*openvsxtest.Server)
	switch {
	case len(args) == 4 && args[0] == "fault":
		kinds := map[string]openvsxtest.Fault{
			"429": openvsxtest.TooManyRequests, "503": openvsxtest.Unavailable, "reset": openvsxtest.Reset,
			"truncated": openvsxtest.Truncated, "sha256": openvsxtest.WrongSHA256,
			"signature": openvsxtest.BadSignature, "slow": openvsxtest.Slow,
		}
		f, ok := kinds[args[2]]
		if !ok {
			ts.Fatalf("upstream fault: unknown kind %q", args[2])
		}
		times := openvsxtest.Always
		if args[3] != "always" {
			n, err := strconv.Atoi(args[3])
			ts.Check(err)
			times = n
		}
		srv.Fault(args[1], f, times)
	case len(args) == 4 && args[0] == "count":
		want, err := strconv.Atoi(args[3])
		ts.Check(err)
		got := 0
		for _, r := range srv.Requests() {
			if strings.HasPrefix(r.Path, args[1]) && strings.HasSuffix(r.Path, args[2]) {
				got++
			}
		}
		if (got == want) == neg {
			ts.Fatalf("upstream: %d requests under %s ending in %s; want %d", got, args[1], args[2], want)
		}
	case len(args) == 2 && args[0] == "control":
		srv.SetControl([]byte(ts.ReadFile(args[1])))
	default:
		ts.Fatalf("usage: upstream fault PATTERN KIND TIMES | upstream count PREFIX SUFFIX N | upstream control FILE (got %s)", strings.Join(args, " "))
	}
}

// cmdVsix packs a folder of the script's work directory as a .vsix, the
// folder's files under extension/ and a vsixmanifest for the identity:
//
//	vsix PUBLISHER NAME VERSION DIR FILE
func cmdVsix(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 5 {
		ts.Fatalf("usage: vsix PUBLISHER NAME VERSION DIR FILE")
	}
	files := map[string]string{"extension.vsixmanifest": vsixtest.VSIXManifest(args[0], args[1], args[2])}
	dir := ts.MkAbs(args[3])
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		files["extension/"+filepath.ToSlash(rel)] = string(b)
		return err
	})
	ts.Check(err)
	ts.Check(vsixtest.Write(ts.MkAbs(args[4]), vsixtest.Minimal(files)))
}
