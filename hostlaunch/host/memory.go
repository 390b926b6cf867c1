package host

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// memoryPoll is how often the launcher reads the host's resident memory.
const memoryPoll = 100 * time.Millisecond

// watchMemory kills the host when its resident memory goes over
// Options.MemoryMB. The heap limit (--max-old-space-size) does not
// count Buffers, typed arrays or native allocations; this does.
func (h *Host) watchMemory() {
	limit := int64(h.opts.MemoryMB) << 20
	h.every(memoryPoll, func() bool {
		rss, err := residentBytes(h.info.PID)
		if err != nil {
			return true // gone, or not Linux: the exit is reported elsewhere
		}
		if rss > limit {
			h.log.Warn("extension host over its memory limit: killed", "pid", h.info.PID, "rssMiB", rss>>20, "limitMiB", h.opts.MemoryMB)
			h.kill(fmt.Sprintf("memory: resident %d MiB, over the limit of %d MiB", rss>>20, h.opts.MemoryMB))
			return false
		}
		return true
	})
}

// residentBytes reads VmRSS of process pid from /proc.
func residentBytes(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("VmRSS:")); ok {
			f := bytes.Fields(v)
			if len(f) != 2 || string(f[1]) != "kB" {
				break
			}
			n, err := strconv.ParseInt(string(f[0]), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("VmRSS of %d: %w", pid, err)
			}
			return n << 10, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS for %d", pid)
}
