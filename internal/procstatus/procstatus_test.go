package procstatus

import (
	"strings"
	"testing"
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
