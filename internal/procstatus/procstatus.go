// Package procstatus reads the memory figures of a process from Linux's
// /proc/PID/status: its resident memory (VmRSS) and its peak (VmHWM).
package procstatus

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// Self names the calling process for Bytes.
const Self = "self"

// Bytes returns the field (VmRSS, VmHWM, ...: a size in kB) of
// /proc/PROC/status, PROC a pid or Self, in bytes.
func Bytes(proc, field string) (int64, error) {
	b, err := os.ReadFile("/proc/" + proc + "/status")
	if err != nil {
		return 0, err
	}
	return parse(b, proc, field)
}

// parse finds field in the text of a status file.
func parse(b []byte, proc, field string) (int64, error) {
	for line := range bytes.Lines(b) {
		v, ok := bytes.CutPrefix(line, []byte(field+":"))
		if !ok {
			continue
		}
		f := bytes.Fields(v)
		if len(f) != 2 || string(f[1]) != "kB" {
			break
		}
		n, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s of %s: %w", field, proc, err)
		}
		return n << 10, nil
	}
	return 0, fmt.Errorf("no %s for %s", field, proc)
}
