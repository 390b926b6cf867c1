package vsixtest

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"hash/crc32"
	"io"
	"testing"

	"github.com/airvsx/airvsx/index/vsix"
)

func TestZeroStream(t *testing.T) {
	r := flate.NewReader(bytes.NewReader(zeroStream(3, 10)))
	h := crc32.NewIEEE()
	n, err := io.Copy(h, r)
	if err != nil || n != 3*zeroChunkSize {
		t.Fatalf("inflate = %d bytes, %v; want %d", n, err, 3*zeroChunkSize)
	}
	if h.Sum32() != zerosCRC(3) {
		t.Errorf("CRC-32 = %08x; want %08x", h.Sum32(), zerosCRC(3))
	}
	if ratio := 256 * zeroChunkSize / len(zeroStream(256, 0)); ratio <= 1000 {
		t.Errorf("the 1 GiB bomb's ratio is %d; want over 1000", ratio)
	}
}

// TestBombIsReal opens a smaller bomb built like the 1 GiB one with a
// ratio limit it passes: its stream, sizes and CRC-32 are valid, so only
// the ratio rule stops the real one.
func TestBombIsReal(t *testing.T) {
	data, err := Bytes(hostile(bomb("extension/bomb.js", 8, 0)))
	if err != nil {
		t.Fatal(err)
	}
	a, err := vsix.NewReader(bytes.NewReader(data), int64(len(data)), vsix.Options{MaxRatio: 2000})
	if err != nil {
		t.Fatalf("NewReader(32 MiB bomb, MaxRatio 2000): %v", err)
	}
	a.Close()
	_, err = vsix.NewReader(bytes.NewReader(data), int64(len(data)), vsix.Options{})
	if !errors.Is(err, vsix.ErrRejected) {
		t.Errorf("NewReader(32 MiB bomb) = %v; want a rejection", err)
	}
}

func TestValid(t *testing.T) {
	for name, build := range map[string]func(io.Writer) error{
		"sample":            Sample(),
		"manifest-mismatch": ManifestMismatch(),
		"minimal":           Minimal(map[string]string{"a/": "", "a/b.txt": "b", "c": ""}),
	} {
		data, err := Bytes(build)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		a, err := vsix.NewReader(bytes.NewReader(data), int64(len(data)), vsix.Options{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		a.Close()
	}
}

// TestHostileParse checks that every hostile archive is still a zip file
// that archive/zip reads, with its bad entry in it.
func TestHostileParse(t *testing.T) {
	names := map[string]bool{}
	for _, c := range Hostile() {
		if names[c.Name] {
			t.Errorf("duplicate case name %q", c.Name)
		}
		names[c.Name] = true
		data, err := Bytes(c.Build)
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
			t.Errorf("%s: archive/zip: %v", c.Name, err)
			continue
		}
		found := c.Entry == ""
		for _, f := range z.File {
			if f.Name == c.Entry {
				found = true
			}
		}
		if !found && c.Rule != vsix.RuleControlChar && c.Rule != vsix.RuleInvalidUTF8 { // those are escaped
			t.Errorf("%s: no entry %q", c.Name, c.Entry)
		}
	}
}
