package vsix

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkCheckLayout10k measures the layout check alone on a file of
// 10,000 small entries, written by archive/zip (so each has a data
// descriptor): the end records, the central directory, and one pread per
// local header and per descriptor. Its cost grows with entries, not bytes.
func BenchmarkCheckLayout10k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "many.zip")
	out, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	zw := zip.NewWriter(out)
	for i := range 10000 {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("extension/dist/%02d/file%05d.js", i%100, i), Method: zip.Deflate})
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(w, "console.log(%d)\n", i)
	}
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	out.Close()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	size := fi.Size()
	r := ioReaderAt{io.NewSectionReader(f, 0, size)}
	z, err := zip.NewReader(r, size)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	for b.Loop() {
		var rep Report
		if _, err := checkLayout(r, size, z.File, &rep); err != nil || len(rep.Problems) > 0 {
			b.Fatal(err, rep.Problems)
		}
	}
}
