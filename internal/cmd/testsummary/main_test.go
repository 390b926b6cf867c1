package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// stream writes events as "go test -json" does, one JSON object a line.
func stream(t *testing.T, events ...event) string {
	t.Helper()
	var b strings.Builder
	for _, e := range events {
		j, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// testEvents are the events of one test: run, its output lines, result.
func testEvents(pkg, test, result string, output ...string) []event {
	evs := []event{{Action: "run", Package: pkg, Test: test}, {Action: "output", Package: pkg, Test: test, Output: "=== RUN   " + test + "\n"}}
	for _, o := range output {
		evs = append(evs, event{Action: "output", Package: pkg, Test: test, Output: o + "\n"})
	}
	word := map[string]string{"pass": "PASS", "fail": "FAIL", "skip": "SKIP"}[result]
	return append(evs,
		event{Action: "output", Package: pkg, Test: test, Output: "--- " + word + ": " + test + " (0.00s)\n"},
		event{Action: result, Package: pkg, Test: test})
}

func pkgEvents(pkg, result string, tests ...[]event) []event {
	evs := []event{{Action: "start", Package: pkg}}
	for _, t := range tests {
		evs = append(evs, t...)
	}
	last := "ok  \t" + pkg + "\t0.01s\n"
	if result == "fail" {
		evs = append(evs, event{Action: "output", Package: pkg, Output: "FAIL\n"})
		last = "FAIL\t" + pkg + "\t0.01s\n"
	}
	return append(evs, event{Action: "output", Package: pkg, Output: last}, event{Action: result, Package: pkg})
}

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		name     string
		verbose  bool
		in       func(t *testing.T) string
		want     summary // events not compared
		ok       bool
		wantOut  []string // in the passed-through output, in order
		wantNot  []string // not in the output
		wantLast string   // the summary's last line
	}{
		{
			name: "all pass",
			in: func(t *testing.T) string {
				return stream(t, pkgEvents("m/a", "pass", testEvents("m/a", "TestA", "pass", "    a_test.go:3: hello"), testEvents("m/a", "TestB", "pass"))...)
			},
			want:     summary{Passed: 2},
			ok:       true,
			wantOut:  []string{"ok  \tm/a\t0.01s\n"},
			wantNot:  []string{"=== RUN", "hello"},
			wantLast: "2 passed, 0 failed, 0 skipped",
		},
		{
			name:    "all pass, verbose",
			verbose: true,
			in: func(t *testing.T) string {
				return stream(t, pkgEvents("m/a", "pass", testEvents("m/a", "TestA", "pass", "    a_test.go:3: hello"), testEvents("m/a", "TestB", "pass"))...)
			},
			want:     summary{Passed: 2},
			ok:       true,
			wantOut:  []string{"=== RUN   TestA\n", "    a_test.go:3: hello\n", "--- PASS: TestA (0.00s)\n", "ok  \tm/a"},
			wantLast: "2 passed, 0 failed, 0 skipped",
		},
		{
			name: "packages interleaved: each written whole when it ends",
			in: func(t *testing.T) string {
				a := pkgEvents("m/a", "fail", testEvents("m/a", "TestBad", "fail", "    a_test.go:9: got 1; want 2"))
				b := pkgEvents("m/b", "fail", testEvents("m/b", "TestWorse", "fail", "    b_test.go:4: nope"))
				var mixed []event
				for i := range max(len(a), len(b)) {
					if i < len(a) {
						mixed = append(mixed, a[i])
					}
					if i < len(b) {
						mixed = append(mixed, b[i])
					}
				}
				return stream(t, mixed...)
			},
			want:     summary{Failed: 2, FailedTests: []string{"m/a TestBad", "m/b TestWorse"}},
			ok:       false,
			wantOut:  []string{"=== RUN   TestBad\n    a_test.go:9: got 1; want 2\n--- FAIL: TestBad (0.00s)\nFAIL\nFAIL\tm/a", "=== RUN   TestWorse\n    b_test.go:4: nope\n"},
			wantLast: "0 passed, 2 failed, 0 skipped",
		},
		{
			name: "a package that never ends",
			in: func(t *testing.T) string {
				return stream(t, append([]event{{Action: "start", Package: "m/k"}}, testEvents("m/k", "TestHang", "pass", "    k_test.go:1: waiting")[:3]...)...)
			},
			want:     summary{},
			ok:       true,
			wantOut:  []string{"=== RUN   TestHang\n", "k_test.go:1: waiting"},
			wantLast: "0 passed, 0 failed, 0 skipped",
		},
		{
			name: "skips and their reasons",
			in: func(t *testing.T) string {
				return stream(t, pkgEvents("m/a", "pass",
					testEvents("m/a", "TestChromium", "skip", "    b_test.go:40: looking", "    b_test.go:46: /usr/bin/chromium is missing (apt-get install chromium); skipping the browser test"),
					testEvents("m/a", "TestQuiet", "skip"),
					testEvents("m/a", "TestParent", "pass"),
					testEvents("m/a", "TestParent/multi", "skip", "    c_test.go:8: first", "        second", "        third", "        fourth"),
					testEvents("m/a", "TestUnprefixed", "skip", "some line", "[condition not met]"),
				)...)
			},
			want: summary{Passed: 1, Skipped: 4, Skips: []skip{
				{"m/a", "TestChromium", []string{"b_test.go:46: /usr/bin/chromium is missing (apt-get install chromium); skipping the browser test"}},
				{"m/a", "TestQuiet", nil},
				{"m/a", "TestParent/multi", []string{"…", "second", "third", "fourth"}},
				{"m/a", "TestUnprefixed", []string{"[condition not met]"}},
			}},
			ok:       true,
			wantOut:  []string{"ok  \tm/a", "SKIP m/a TestChromium\n       b_test.go:46: /usr/bin/chromium is missing"},
			wantLast: "1 passed, 0 failed, 4 skipped",
		},
		{
			name: "a failing test",
			in: func(t *testing.T) string {
				return stream(t, pkgEvents("m/a", "fail", testEvents("m/a", "TestA", "pass"), testEvents("m/a", "TestBad", "fail", "    a_test.go:9: got 1; want 2"))...)
			},
			want:     summary{Passed: 1, Failed: 1, FailedTests: []string{"m/a TestBad"}},
			ok:       false,
			wantOut:  []string{"=== RUN   TestBad\n", "    a_test.go:9: got 1; want 2\n", "--- FAIL: TestBad", "FAIL\tm/a"},
			wantLast: "1 passed, 1 failed, 0 skipped",
		},
		{
			name: "a build failure",
			in: func(t *testing.T) string {
				return stream(t,
					event{ImportPath: "m/b [m/b.test]", Action: "build-output", Output: "# m/b [m/b.test]\n"},
					event{ImportPath: "m/b [m/b.test]", Action: "build-output", Output: "b/b_test.go:3:28: undefined: undefined\n"},
					event{ImportPath: "m/b [m/b.test]", Action: "build-fail"},
					event{Action: "start", Package: "m/b"},
					event{Action: "output", Package: "m/b", Output: "FAIL\tm/b [build failed]\n"},
					event{Action: "fail", Package: "m/b", FailedBuild: "m/b [m/b.test]"},
				)
			},
			want:     summary{BuildFailures: []string{"m/b [m/b.test]"}, FailedPackages: []string{"m/b"}},
			ok:       false,
			wantOut:  []string{"b/b_test.go:3:28: undefined: undefined\n", "FAIL\tm/b [build failed]\n", "FAIL m/b: build failed"},
			wantLast: "0 passed, 0 failed, 0 skipped",
		},
		{
			name: "a package failing outside its tests",
			in: func(t *testing.T) string {
				return stream(t, pkgEvents("m/c", "fail", testEvents("m/c", "TestA", "pass"))...)
			},
			want:     summary{Passed: 1, FailedPackages: []string{"m/c"}},
			ok:       false,
			wantOut:  []string{"FAIL m/c: failed outside any test"},
			wantLast: "1 passed, 0 failed, 0 skipped",
		},
		{
			name: "packages without tests, lines that are not JSON",
			in: func(t *testing.T) string {
				return "go: downloading example.org/x v1.0.0\n" + stream(t,
					event{Action: "start", Package: "m/d"},
					event{Action: "output", Package: "m/d", Output: "?   \tm/d\t[no test files]\n"},
					event{Action: "skip", Package: "m/d"},
				)
			},
			want:     summary{},
			ok:       true,
			wantOut:  []string{"go: downloading example.org/x v1.0.0\n", "?   \tm/d\t[no test files]\n"},
			wantLast: "0 passed, 0 failed, 0 skipped",
		},
		{
			name:     "no input",
			in:       func(*testing.T) string { return "" },
			want:     summary{},
			ok:       false,
			wantOut:  []string{"no test results on stdin"},
			wantLast: "0 passed, 0 failed, 0 skipped",
		},
		{
			name: "last line without a newline",
			in: func(t *testing.T) string {
				return strings.TrimSuffix(stream(t, pkgEvents("m/a", "pass", testEvents("m/a", "TestA", "pass"))...), "\n")
			},
			want:     summary{Passed: 1},
			ok:       true,
			wantLast: "1 passed, 0 failed, 0 skipped",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			got, err := summarize(strings.NewReader(tc.in(t)), &out, tc.verbose)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, *got, cmp.AllowUnexported(summary{}), cmp.FilterPath(func(p cmp.Path) bool {
				last := p.Last().String()
				return last == ".events" || last == ".SlowTests" || last == ".SlowPackages" // TestSlowest
			}, cmp.Ignore())); diff != "" {
				t.Errorf("summarize: (-want +got)\n%s", diff)
			}
			if got.ok() != tc.ok {
				t.Errorf("ok() = %v; want %v", got.ok(), tc.ok)
			}
			got.write(&out)
			text := out.String()
			rest := text
			for _, w := range tc.wantOut {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q (in order); output:\n%s", w, text)
				}
				rest = rest[i+len(w):]
			}
			for _, n := range tc.wantNot {
				if strings.Contains(text, n) {
					t.Errorf("output has %q; output:\n%s", n, text)
				}
			}
			lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
			if last := lines[len(lines)-1]; last != tc.wantLast {
				t.Errorf("last line = %q; want %q", last, tc.wantLast)
			}
		})
	}
}

// TestSlowest: the summary lists the slowest packages and tests
// (subtests too), slowest first, at most maxSlow of each.
func TestSlowest(t *testing.T) {
	var evs []event
	for i := range maxSlow + 2 {
		pkg := fmt.Sprintf("m/p%d", i)
		test := testEvents(pkg, "TestT", "pass")
		test[len(test)-1].Elapsed = float64(i)
		sub := testEvents(pkg, "TestT/sub", "pass")
		sub[len(sub)-1].Elapsed = float64(i) + 0.5 // a subtest: listed too
		p := pkgEvents(pkg, "pass", sub, test)
		p[len(p)-1].Elapsed = float64(10 * i)
		evs = append(evs, p...)
	}
	var out bytes.Buffer
	got, err := summarize(strings.NewReader(stream(t, evs...)), &out, false)
	if err != nil {
		t.Fatal(err)
	}
	var wantTests, wantPkgs []timed
	for i := maxSlow + 1; len(wantTests) < maxSlow; i-- {
		wantTests = append(wantTests, timed{fmt.Sprintf("m/p%d TestT/sub", i), float64(i) + 0.5}, timed{fmt.Sprintf("m/p%d TestT", i), float64(i)})
	}
	for i := maxSlow + 1; i > 1; i-- {
		wantPkgs = append(wantPkgs, timed{fmt.Sprintf("m/p%d", i), float64(10 * i)})
	}
	if diff := cmp.Diff(wantTests, got.SlowTests); diff != "" {
		t.Errorf("slowest tests (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantPkgs, got.SlowPackages); diff != "" {
		t.Errorf("slowest packages (-want +got):\n%s", diff)
	}
	got.write(&out)
	for _, w := range []string{"Slowest packages:\n     90.0s m/p9\n", "Slowest tests:\n      9.5s m/p9 TestT/sub\n      9.0s m/p9 TestT\n"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, out.String())
		}
	}
}
