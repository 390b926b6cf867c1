package transfer_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/transfer"
)

const goodManifest = `airvsx-bundle 1
registry: 1111111111111111111111111111111111111111111111111111111111111111
from: 1 sha256:2222222222222222222222222222222222222222222222222222222222222222
to: 2 sha256:3333333333333333333333333333333333333333333333333333333333333333
files: 2 12

4444444444444444444444444444444444444444444444444444444444444444  10  blobs/pub/ext/4444444444444444444444444444444444444444444444444444444444444444
5555555555555555555555555555555555555555555555555555555555555555  2  metadata/timestamp.json
`

// TestParseBundleManifest: the manifest is parsed strictly; every way it
// can be wrong or hostile is refused, naming what.
func TestParseBundleManifest(t *testing.T) {
	m, err := transfer.ParseBundleManifest([]byte(goodManifest))
	if err != nil {
		t.Fatal(err)
	}
	if m.From.Serial != 1 || m.To.Serial != 2 || len(m.Files) != 2 || m.Bytes() != 12 || m.Files[1].Path != "metadata/timestamp.json" {
		t.Fatalf("parsed %+v", m)
	}
	if got := string(m.Encode()); got != goodManifest {
		t.Errorf("encoded again:\n%s\nwant:\n%s", got, goodManifest)
	}
	blob := "blobs/pub/ext/4444444444444444444444444444444444444444444444444444444444444444"
	for _, tc := range []struct{ name, old, new, want string }{
		{"magic", "airvsx-bundle 1", "airvsx-bundle 2", "not a bundle manifest"},
		{"registry", "registry: 1111", "registry: 111X", "registry: want the 64 hex"},
		{"from digest", "from: 1 sha256:2222", "from: 1 sha1:2222", "is not a sha256:<hex> digest"},
		{"from zero with digest", "from: 1 ", "from: 0 ", "serial 0 goes with -"},
		{"to before from", "to: 2 ", "to: 1 ", "to serial 1 is not after from serial 1"},
		{"count", "files: 2 12", "files: 3 12", "header says 3 files"},
		{"total", "files: 2 12", "files: 2 13", "of 13 bytes"},
		{"count with a plus", "files: 2 12", "files: +2 12", "files: want COUNT"},
		{"no blank line", "12\n\n", "12\nx\n", "want a blank line"},
		{"dot dot", blob, "blobs/pub/../ext/4444444444444444444444444444444444444444444444444444444444444444", "empty, . or .. element"},
		{"absolute", blob, "/etc/4444444444444444444444444444444444444444444444444444444444444444", "not a relative path"},
		{"outside", blob, "other/pub/ext/4444444444444444444444444444444444444444444444444444444444444444", "not under metadata/, deltas/ or blobs/"},
		{"blob named otherwise", blob, "blobs/pub/ext/5444444444444444444444444444444444444444444444444444444444444444", "a blob's file is named by its sha256"},
		{"upper-case repository", blob, "blobs/Pub/ext/4444444444444444444444444444444444444444444444444444444444444444", "not lower-case"},
		{"device name", "metadata/timestamp.json", "metadata/aux.json", "reserved device name"},
		{"FAT character", "metadata/timestamp.json", "metadata/time:stamp.json", "a character FAT cannot store"},
		{"trailing dot", "metadata/timestamp.json", "metadata/timestamp.json.", "ending in a dot or space"},
		{"over 4 GiB", "  10  blobs", "  4294967296  blobs", "more than FAT32 holds"},
		{"negative size", "  10  blobs", "  -10  blobs", "is not a number of bytes"},
		{"unsorted", "5555555555555555555555555555555555555555555555555555555555555555  2  metadata/timestamp.json\n",
			"5555555555555555555555555555555555555555555555555555555555555555  2  metadata/timestamp.json\n5555555555555555555555555555555555555555555555555555555555555555  0  blobs/a/b/5555555555555555555555555555555555555555555555555555555555555555\n", "must be sorted"},
		{"carriage return", "files: 2 12\n", "files: 2 12\r\n", "a carriage return"},
		{"cut short", "timestamp.json\n", "timestamp.json", "cut short"},
		{"not UTF-8", "metadata/timestamp.json", "metadata/time\xffstamp.json", "not UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(goodManifest, tc.old) {
				t.Fatalf("%q is not in the manifest", tc.old)
			}
			_, err := transfer.ParseBundleManifest([]byte(strings.Replace(goodManifest, tc.old, tc.new, 1)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v; want one saying %q", err, tc.want)
			}
		})
	}
	// Two paths that one FAT directory holds as one file.
	dup := strings.Replace(goodManifest, "files: 2 12", "files: 3 14", 1) +
		"5555555555555555555555555555555555555555555555555555555555555555  2  metadata/timestamp.jsoN\n"
	if _, err := transfer.ParseBundleManifest([]byte(dup)); err == nil {
		t.Error("accepted a path that differs from another only in case")
	}
}

// FuzzParseBundleManifest: a manifest from a stick is hostile bytes.
// Parsing never panics, and what it accepts is in canonical form: it
// encodes back to the same bytes, so two readers cannot see two
// manifests in it.
func FuzzParseBundleManifest(f *testing.F) {
	f.Add([]byte(goodManifest))
	f.Add([]byte(strings.Replace(goodManifest, "from: 1 sha256:2222222222222222222222222222222222222222222222222222222222222222", "from: 0 -", 1)))
	f.Add([]byte("airvsx-bundle 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := transfer.ParseBundleManifest(data)
		if err != nil {
			return
		}
		if got := m.Encode(); !bytes.Equal(got, data) {
			t.Fatalf("accepted %q; encodes as %q", data, got)
		}
	})
}
