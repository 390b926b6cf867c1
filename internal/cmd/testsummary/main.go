// Command testsummary reads the output of "go test -json" on stdin and
// writes what "go test" would have shown to stdout, one package at a time
// as each finishes: the "ok" line (or "?", no test files) of a package
// that passed, all the output of one that failed (with -v: all the
// output of every package). Then it writes what a test run otherwise
// hides:
//
//   - the tests that failed, and the packages that failed with no failing
//     test (a build failure, a panic outside a test, a timeout);
//   - every skipped test with its reason (the last thing it logged,
//     up to three lines);
//   - the slowest packages and tests (subtests too), with their wall time,
//     to show where a slow run spends it;
//   - last, one line exactly of the form "N passed, N failed, N skipped",
//     counting tests (subtests included), not packages.
//
// It exits 1 when a test or a package failed, or when stdin held no test
// results at all. Lines that are not JSON are copied through as they are.
//
//	set -o pipefail; go test -json ./... | go run ./internal/cmd/testsummary
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

func main() {
	verbose := flag.Bool("v", false, "show the output of passing packages too, as go test -v does")
	flag.Parse()
	s, err := summarize(os.Stdin, os.Stdout, *verbose)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testsummary: %v\n", err)
		os.Exit(2)
	}
	s.write(os.Stdout)
	if !s.ok() {
		os.Exit(1)
	}
}

// event is one line of "go test -json" (cmd/test2json), with the build
// events of Go 1.24 and later (ImportPath, build-output, build-fail).
type event struct {
	Action      string
	Package     string
	Test        string
	Output      string
	Elapsed     float64 // seconds, on pass, fail and skip
	ImportPath  string
	FailedBuild string
}

// maxReasonLines is how many lines of a skipped test's last log entry the
// summary shows.
const maxReasonLines = 3

// skip is a skipped test and why.
type skip struct {
	Package, Test string
	Reason        []string // the lines of its last log entry, trimmed; nil if it logged nothing
}

// summary is what summarize found in a test run.
type summary struct {
	Passed, Failed, Skipped int
	Skips                   []skip
	FailedTests             []string // "package TestName"
	FailedPackages          []string // packages that failed with no failing test
	BuildFailures           []string // import paths whose build failed
	SlowTests, SlowPackages []timed  // the slowest, slowest first
	events                  int
}

// timed is a test or package and its wall time in seconds.
type timed struct {
	Name    string
	Elapsed float64
}

// maxSlow is how many of the slowest tests and packages the summary lists.
const maxSlow = 8

// addSlow keeps the maxSlow slowest of list and t, slowest first.
func addSlow(list []timed, t timed) []timed {
	i := len(list)
	for i > 0 && list[i-1].Elapsed < t.Elapsed {
		i--
	}
	if i >= maxSlow {
		return list
	}
	list = append(list[:i], append([]timed{t}, list[i:]...)...)
	return list[:min(len(list), maxSlow)]
}

// ok reports whether the run passed: results were seen and nothing failed.
func (s *summary) ok() bool {
	return s.events > 0 && s.Failed == 0 && len(s.FailedPackages) == 0 && len(s.BuildFailures) == 0
}

type testKey struct{ pkg, test string }

// framing matches the lines the testing package writes around a test's
// own output.
var framing = regexp.MustCompile(`^\s*(=== (RUN|PAUSE|CONT|NAME)\s|--- (PASS|FAIL|SKIP|BENCH): )`)

// logStart matches the first line of a t.Log entry: "    file_test.go:12: ".
var logStart = regexp.MustCompile(`^\s+\S+\.go:\d+: `)

// summarize copies the Output of the events read from r to w and counts
// the results. Output is held per package until the package's result:
// then all of it is written when the package failed or verbose is set,
// else only its "ok" line. Output of packages that never finish is
// written at the end.
func summarize(r io.Reader, w io.Writer, verbose bool) (*summary, error) {
	s := &summary{}
	held := make(map[string][]event) // output of unfinished packages
	var heldOrder []string
	flush := func(pkg string, all bool) error {
		for _, e := range held[pkg] {
			if all || (e.Test == "" && (strings.HasPrefix(e.Output, "ok ") || strings.HasPrefix(e.Output, "? "))) {
				if _, err := io.WriteString(w, e.Output); err != nil {
					return err
				}
			}
		}
		delete(held, pkg)
		return nil
	}
	logs := make(map[testKey][]string)  // each running test's output, framing dropped
	failedTests := make(map[string]int) // failing tests by package
	pkgFailed := make(map[string]bool)  // packages whose result is fail
	var pkgOrder []string               // failed packages, in the order seen
	br := bufio.NewReaderSize(r, 1<<16)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var e event
			if jerr := json.Unmarshal(line, &e); jerr != nil || e.Action == "" {
				if _, werr := w.Write(line); werr != nil {
					return nil, werr
				}
			} else {
				s.events++
				if e.Output != "" {
					if e.Package == "" { // build output: at once
						if _, werr := io.WriteString(w, e.Output); werr != nil {
							return nil, werr
						}
					} else {
						if _, ok := held[e.Package]; !ok {
							heldOrder = append(heldOrder, e.Package)
						}
						held[e.Package] = append(held[e.Package], e)
					}
				}
				if e.Test == "" && e.Package != "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") {
					if ferr := flush(e.Package, verbose || e.Action == "fail"); ferr != nil {
						return nil, ferr
					}
				}
				k := testKey{e.Package, e.Test}
				switch {
				case e.Action == "build-fail":
					s.BuildFailures = append(s.BuildFailures, e.ImportPath)
				case e.Test == "":
					if (e.Action == "pass" || e.Action == "fail") && e.Package != "" {
						s.SlowPackages = addSlow(s.SlowPackages, timed{e.Package, e.Elapsed})
					}
					if e.Action == "fail" && !pkgFailed[e.Package] {
						pkgFailed[e.Package] = true
						pkgOrder = append(pkgOrder, e.Package)
					}
				case e.Action == "output":
					if out := strings.TrimRight(e.Output, "\n"); !framing.MatchString(out) {
						logs[k] = append(logs[k], out)
					}
				case e.Action == "pass":
					s.Passed++
					s.addSlowTest(e)
					delete(logs, k)
				case e.Action == "fail":
					s.Failed++
					s.addSlowTest(e)
					failedTests[e.Package]++
					s.FailedTests = append(s.FailedTests, e.Package+" "+e.Test)
					delete(logs, k)
				case e.Action == "skip":
					s.Skipped++
					s.Skips = append(s.Skips, skip{Package: e.Package, Test: e.Test, Reason: lastEntry(logs[k])})
					delete(logs, k)
				}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read stdin: %w", err)
		}
	}
	for _, p := range heldOrder {
		if _, ok := held[p]; ok {
			if err := flush(p, true); err != nil {
				return nil, err
			}
		}
	}
	for _, p := range pkgOrder {
		if failedTests[p] == 0 {
			s.FailedPackages = append(s.FailedPackages, p)
		}
	}
	return s, nil
}

// addSlowTest counts a finished test among the slowest. Subtests count
// too: a test whose subtests run in parallel finishes (0.00s) before
// they do.
func (s *summary) addSlowTest(e event) {
	s.SlowTests = addSlow(s.SlowTests, timed{e.Package + " " + e.Test, e.Elapsed})
}

// lastEntry returns the last log entry of a test's output (from its last
// "file.go:N: " line), trimmed, at most maxReasonLines lines (the last
// ones).
func lastEntry(lines []string) []string {
	start := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if logStart.MatchString(lines[i]) {
			start = i
			break
		}
	}
	if start < 0 {
		start = max(len(lines)-1, 0)
	}
	var entry []string
	for _, l := range lines[start:] {
		if l = strings.TrimSpace(l); l != "" {
			entry = append(entry, l)
		}
	}
	if len(entry) > maxReasonLines {
		entry = append([]string{"…"}, entry[len(entry)-maxReasonLines:]...)
	}
	return entry
}

// write prints the summary, ending with the counts line.
func (s *summary) write(w io.Writer) {
	fmt.Fprintln(w)
	if len(s.Skips) > 0 {
		fmt.Fprintf(w, "Skipped tests (%d):\n", len(s.Skips))
		for _, sk := range s.Skips {
			fmt.Fprintf(w, "  SKIP %s %s\n", sk.Package, sk.Test)
			if len(sk.Reason) == 0 {
				fmt.Fprintln(w, "       (no reason given)")
			}
			for _, l := range sk.Reason {
				fmt.Fprintf(w, "       %s\n", l)
			}
		}
	}
	failures := append([]string(nil), s.FailedTests...)
	for _, p := range s.BuildFailures {
		name, _, _ := strings.Cut(p, " ") // "pkg [pkg.test]"
		failures = append(failures, name+": build failed")
	}
	for _, p := range s.FailedPackages {
		if !s.buildFailed(p) {
			failures = append(failures, p+": failed outside any test")
		}
	}
	if len(failures) > 0 {
		fmt.Fprintln(w, "Failures (their output is above):")
		for _, f := range failures {
			fmt.Fprintf(w, "  FAIL %s\n", f)
		}
	}
	for _, list := range []struct {
		what  string
		items []timed
	}{{"packages", s.SlowPackages}, {"tests", s.SlowTests}} {
		if len(list.items) == 0 {
			continue
		}
		fmt.Fprintf(w, "Slowest %s:\n", list.what)
		for _, t := range list.items {
			fmt.Fprintf(w, "  %7.1fs %s\n", t.Elapsed, t.Name)
		}
	}
	if s.events == 0 {
		fmt.Fprintln(w, "no test results on stdin (was it go test -json?)")
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", s.Passed, s.Failed, s.Skipped)
}

// buildFailed reports whether the package's failure is a build failure
// already listed.
func (s *summary) buildFailed(pkg string) bool {
	for _, b := range s.BuildFailures {
		if b == pkg || strings.HasPrefix(b, pkg+" ") {
			return true
		}
	}
	return false
}
