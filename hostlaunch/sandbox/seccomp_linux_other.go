//go:build linux && !amd64 && !arm64

package sandbox

import (
	"fmt"
	"runtime"
)

// nativeSeccompArch fails: the filter's system call numbers and
// architecture guard are written for amd64 and arm64 only, and a
// blocklist with the wrong numbers would block nothing.
func nativeSeccompArch() (*seccompArch, error) {
	return nil, fmt.Errorf("no seccomp filter for GOARCH %s", runtime.GOARCH)
}
