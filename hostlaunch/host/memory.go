package host

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/airvsx/airvsx/internal/procstatus"
)

// memoryPoll is how often the launcher reads the host's resident memory.
const memoryPoll = 100 * time.Millisecond

// watchMemory kills the host when the resident memory of its process and
// all their descendants (node under the sandbox helper) goes over
// Options.MemoryMB. The heap limit (--max-old-space-size) does not count
// Buffers, typed arrays or native allocations; this does. The process is
// the one the launcher started, never a pid the host reports.
func (h *Host) watchMemory() {
	limit := int64(h.opts.MemoryMB) << 20
	pid := h.cmd.Process.Pid
	h.every(memoryPoll, func() bool {
		rss, err := treeResident(pid)
		if err != nil {
			return true // gone, or not Linux: the exit is reported elsewhere
		}
		if rss > limit {
			h.log.Warn("extension host over its memory limit: killed", "pid", pid, "rssMiB", rss>>20, "limitMiB", h.opts.MemoryMB)
			h.kill(fmt.Sprintf("memory: resident %d MiB, over the limit of %d MiB", rss>>20, h.opts.MemoryMB))
			return false
		}
		return true
	})
}

// treeResident is the resident memory of process pid and of all its
// descendants (/proc/PID/task/TID/children), in bytes.
func treeResident(pid int) (int64, error) {
	total, err := residentBytes(pid)
	if err != nil {
		return 0, err
	}
	for _, c := range children(pid) {
		if n, err := treeResident(c); err == nil {
			total += n // a child that ended meanwhile counts nothing
		}
	}
	return total, nil
}

// children lists the children of every thread of process pid.
func children(pid int) []int {
	base := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(base)
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(base + "/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// residentBytes is the resident memory of process pid.
func residentBytes(pid int) (int64, error) {
	return procstatus.Bytes(strconv.Itoa(pid), "VmRSS")
}
