package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/airvsx/airvsx/index/vsix/vsixtest"
)

func TestMain(m *testing.M) {
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
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"hostile": cmdHostile,
			"status":  cmdStatus,
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "netns":
				// Can this process make a user and network namespace
				// with no network at all?
				return exec.Command("unshare", "-rn", "true").Run() == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
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

// cmdHostile writes one of vsixtest's hostile archives:
//
//	hostile NAME FILE
//	hostile manifest-mismatch FILE   (package.json and vsixmanifest disagree)
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
	if args[0] == "manifest-mismatch" {
		ts.Check(vsixtest.Write(ts.MkAbs(args[1]), vsixtest.ManifestMismatch()))
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
