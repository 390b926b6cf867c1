package copybuf

import (
	"bytes"
	"crypto/rand"
	"io"
	"testing"
)

// TestCopy copies streams shorter than, equal to and longer than a buffer,
// through the pooled buffer (a plain reader and writer) and through the
// reader's own WriterTo.
func TestCopy(t *testing.T) {
	for _, n := range []int{0, 1, Size - 1, Size, Size + 1, 3*Size + 17} {
		data := make([]byte, n)
		rand.Read(data)
		for _, plain := range []bool{true, false} {
			var src io.Reader = bytes.NewReader(data)
			if plain {
				src = struct{ io.Reader }{src} // no WriterTo: the pooled buffer
			}
			var dst bytes.Buffer
			got, err := Copy(struct{ io.Writer }{&dst}, src)
			if err != nil || got != int64(n) || !bytes.Equal(dst.Bytes(), data) {
				t.Errorf("Copy of %d bytes (plain %v) = %d, %v; same bytes %v", n, plain, got, err, bytes.Equal(dst.Bytes(), data))
			}
		}
	}
}
