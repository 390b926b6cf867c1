package vsix_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/airvsx/airvsx/index/vsix"
)

// bench50MB is a 50 MB archive of 10,000 entries: two thirds JavaScript-like
// text (deflated), one third random bytes (half stored, half deflated), as
// in extensions that bundle scripts, images and binaries. It is built once
// per process.
var bench50MB = sync.OnceValue(func() []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields(`const let var function return if else for while async await import export
		default from require module exports this new class extends super null undefined true false
		vscode window commands registerCommand context subscriptions push activate deactivate
		document uri path fs readFile writeFile then catch Promise resolve reject length map filter`)
	text := func(n int) []byte {
		var b bytes.Buffer
		for b.Len() < n {
			b.WriteString(words[rng.IntN(len(words))])
			switch rng.IntN(8) {
			case 0:
				b.WriteString(";\n")
			case 1:
				fmt.Fprintf(&b, "(%d)", rng.IntN(100000))
			default:
				b.WriteByte(' ')
			}
		}
		return b.Bytes()[:n]
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for i := range 10000 {
		h := &zip.FileHeader{Name: fmt.Sprintf("extension/dist/%02d/file%05d", i%100, i), Method: zip.Deflate}
		var data []byte
		switch i % 6 {
		case 0:
			h.Method = zip.Store
			fallthrough
		case 1:
			data = make([]byte, 2000+rng.IntN(8000))
			for j := range data {
				data[j] = byte(rng.Uint32())
			}
			h.Name += ".png"
		default:
			data = text(4000 + rng.IntN(20000))
			h.Name += ".js"
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			panic(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return out.Bytes()
})

// BenchmarkOpen50MB10k measures Open+Close of a 50 MB archive of 10,000
// entries: the central-directory checks and the data pass that inflates
// and checksums every entry.
func BenchmarkOpen50MB10k(b *testing.B) {
	data := bench50MB()
	path := filepath.Join(b.TempDir(), "big.vsix")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	var total int64
	a, err := vsix.Open(path, vsix.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range a.Entries() {
		total += e.Size
	}
	a.Close()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		a, err := vsix.Open(path, vsix.Options{})
		if err != nil {
			b.Fatal(err)
		}
		a.Close()
	}
	b.ReportMetric(float64(total)/1e6, "MB-inflated/op")
}
