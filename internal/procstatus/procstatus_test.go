package procstatus

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	status := []byte("Name:\tnode\nVmHWM:\t  123456 kB\nVmRSS:\t   2048 kB\nThreads:\t7\n")
	for _, tc := range []struct {
		field string
		want  int64
		err   string
	}{
		{"VmRSS", 2048 << 10, ""},
		{"VmHWM", 123456 << 10, ""},
		{"VmSwap", 0, "no VmSwap for 7"},
		{"Threads", 0, "no Threads for 7"}, // not a size in kB
	} {
		got, err := parse(status, "7", tc.field)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("parse(%s) = %d, %v; want %d, %q", tc.field, got, err, tc.want, tc.err)
		}
	}
}

// TestSelf: this process has a resident memory and a peak at least as
// large.
func TestSelf(t *testing.T) {
	rss, err := Bytes(Self, "VmRSS")
	if err != nil || rss <= 0 {
		t.Fatalf("VmRSS = %d, %v", rss, err)
	}
	if hwm, err := Bytes(Self, "VmHWM"); err != nil || hwm < rss {
		t.Errorf("VmHWM = %d, %v; want at least VmRSS %d", hwm, err, rss)
	}
}

func TestParseStat(t *testing.T) {
	for _, tc := range []struct {
		name, stat string
		want       time.Duration
		err        string
	}{
		{"plain", "42 (node) S 1 42 42 0 -1 4194304 100 0 0 0 250 37 0 0 20 0 11 0 123 456 789", 2870 * time.Millisecond, ""},
		{"name with spaces and parentheses", "42 (a (b) c) R 1 42 42 0 -1 0 0 0 0 0 1 2 0 0", 30 * time.Millisecond, ""},
		{"cut short", "42 (node) S 1 42", 0, "fields after the command name"},
		{"no name", "42 node S", 0, "no command name"},
		{"not a number", "42 (node) S 1 42 42 0 -1 0 0 0 0 0 x 2", 0, "invalid syntax"},
	} {
		got, err := parseStat([]byte(tc.stat), "42")
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: parseStat = %v, %v; want %v, %q", tc.name, got, err, tc.want, tc.err)
		}
	}
}

// TestCPUTime: this process's CPU time grows while it spins, not while
// it sleeps; a process that does not exist has none.
func TestCPUTime(t *testing.T) {
	before, err := CPUTime(Self)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if slept, err := CPUTime(Self); err != nil || slept-before >= 100*time.Millisecond {
		t.Errorf("sleeping 200 ms used %v of CPU (%v)", slept-before, err)
	}
	// Spin until 50 ms more show, for at most a minute of waiting for a
	// CPU on a loaded machine.
	for end := time.Now().Add(time.Minute); ; {
		used, err := CPUTime(Self)
		if err != nil {
			t.Fatal(err)
		}
		if used-before >= 50*time.Millisecond {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("a minute of spinning used %v of CPU", used-before)
		}
	}
	if _, err := CPUTime(strconv.Itoa(1 << 30)); err == nil {
		t.Error("CPUTime of a process that does not exist: no error")
	}
}
