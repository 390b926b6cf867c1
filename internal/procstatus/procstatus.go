// Package procstatus reads the memory figures of a process from Linux's
// /proc/PID/status: its resident memory (VmRSS) and its peak (VmHWM);
// and the CPU time it used from /proc/PID/stat.
package procstatus

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
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

// userHZ is the unit of the times in /proc/PID/stat: USER_HZ, 100 on
// every Linux architecture Go supports.
const userHZ = 100

// CPUTime returns the CPU time, user and system, that process PROC (a pid
// or Self) has used, from /proc/PROC/stat (a resolution of 10 ms). Tests
// measure work with it where wall time would depend on the machine's load.
func CPUTime(proc string) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + proc + "/stat")
	if err != nil {
		return 0, err
	}
	return parseStat(b, proc)
}

// parseStat sums utime and stime in the text of a stat file.
func parseStat(b []byte, proc string) (time.Duration, error) {
	// The command name is in parentheses and may hold spaces and
	// parentheses: the fields after the last ")" are state (field 3)
	// on, utime and stime are fields 14 and 15.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("stat of %s: no command name", proc)
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("stat of %s: %d fields after the command name, want at least 13", proc, len(f))
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(string(s), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("stat of %s: %w", proc, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}
