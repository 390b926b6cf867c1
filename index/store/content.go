package store

import (
	"bytes"
	"context"
	"fmt"
	"io"
)

// Content is a blob's content that can be read more than once, so that a
// store can retry an upload that failed midway (restic's RewindReader):
// Rewind starts it again at its first byte.
type Content interface {
	io.Reader
	// Rewind makes the next Read return the first byte again.
	Rewind() error
}

// BytesContent returns b as Content.
func BytesContent(b []byte) Content { return &bytesContent{bytes.NewReader(b)} }

type bytesContent struct{ *bytes.Reader }

func (c *bytesContent) Rewind() error {
	_, err := c.Seek(0, io.SeekStart)
	return err
}

// SeekContent returns the content of r from its first byte (an open
// file, say, at offset 0); Rewind seeks back to offset 0.
func SeekContent(r io.ReadSeeker) Content { return seekContent{r} }

type seekContent struct{ io.ReadSeeker }

func (c seekContent) Rewind() error {
	_, err := c.Seek(0, io.SeekStart)
	return err
}

// Commit ends a change in s with message when s groups writes into
// changes (see Committer); for other stores it does nothing.
func Commit(ctx context.Context, s Store, message string) error {
	if c, ok := As[Committer](s); ok {
		if err := c.Commit(ctx, message); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
	}
	return nil
}

// ReopenContent is content that is opened afresh by every Rewind (an
// archive member, say). Close it when done.
type ReopenContent struct {
	open func() (io.ReadCloser, error)
	rc   io.ReadCloser
}

// Reopen returns content read from open(); Rewind closes the reader and
// calls open again.
func Reopen(open func() (io.ReadCloser, error)) (*ReopenContent, error) {
	rc, err := open()
	if err != nil {
		return nil, err
	}
	return &ReopenContent{open: open, rc: rc}, nil
}

// Read reads from the reader open returned last.
func (c *ReopenContent) Read(p []byte) (int, error) { return c.rc.Read(p) }

// Rewind closes the current reader and opens the content again.
func (c *ReopenContent) Rewind() error {
	c.rc.Close()
	rc, err := c.open()
	if err != nil {
		c.rc = io.NopCloser(errReader{err})
		return err
	}
	c.rc = rc
	return nil
}

// Close closes the current reader.
func (c *ReopenContent) Close() error { return c.rc.Close() }

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
