package session

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"

	"github.com/airvsx/airvsx/hostlaunch/host"
)

// auditLog appends one JSON line per audit record to a file.
type auditLog struct {
	mu  sync.Mutex
	f   *os.File
	err error // the first write error, reported at close
}

// openAuditLog opens path for appending (created 0600 if missing). A path
// that is not a regular file (a FIFO, a device) is refused before and
// after the open, so the launcher never blocks on it.
func openAuditLog(path string) (*auditLog, error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("audit log %s: not a regular file", path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("audit log %s: not a regular file", path)
	}
	return &auditLog{f: f}, nil
}

// record appends a as one line: time, extension, kind, allowed, details.
func (l *auditLog) record(a host.Audit) {
	b, err := json.Marshal(a)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err == nil {
		_, err = l.f.Write(append(b, '\n'))
	}
	if err != nil && l.err == nil {
		l.err = fmt.Errorf("audit log %s: %w", l.f.Name(), err)
	}
}

// Close closes the file and returns the first error met.
func (l *auditLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.f.Close(); err != nil && l.err == nil {
		l.err = err
	}
	return l.err
}

var _ io.Closer = (*auditLog)(nil)
