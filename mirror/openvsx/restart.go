package openvsx

// Restarting a download: the destination is rewound before each attempt,
// or the retry is refused once something was written to a destination that
// cannot be rewound.

import (
	"errors"
	"io"
)

// truncater is a destination Download can start over.
type truncater interface {
	io.Writer
	io.Seeker
	Truncate(size int64) error
}

// restarter returns the per-attempt opener of w: rewind a truncater;
// refuse to restart any other writer once something was written to it.
func restarter(w io.Writer) func() (io.Writer, error) {
	if t, ok := w.(truncater); ok {
		return func() (io.Writer, error) {
			if _, err := t.Seek(0, io.SeekStart); err != nil {
				return nil, err
			}
			if err := t.Truncate(0); err != nil {
				return nil, err
			}
			return t, nil
		}
	}
	mw := &markWriter{w: w}
	return func() (io.Writer, error) {
		if mw.written {
			return nil, errors.New("cannot retry: the destination cannot be rewound")
		}
		return mw, nil
	}
}

// markWriter remembers whether anything was written.
type markWriter struct {
	w       io.Writer
	written bool
}

func (m *markWriter) Write(p []byte) (int, error) {
	n, err := m.w.Write(p)
	if n > 0 {
		m.written = true
	}
	return n, err
}
