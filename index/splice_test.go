package index

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// spliceEntries makes n entries of a few extensions, with versions
// (pre-releases among them), platforms and text that an entry's layout
// must survive: quotes, line breaks, braces at an entry's indentation,
// escapes and non-ASCII.
func spliceEntries(r *rand.Rand, n int) []Entry {
	texts := []string{"plain", "a \"quoted\" word", "line\n    },\n    {\nbreak", "tab\there", "<html> & 'x'", "ünïcödé ✓", `back\slash`, "    }"}
	platforms := []Platform{Universal, "linux-x64", "win32-x64", "darwin-arm64"}
	seen := map[string]bool{}
	var out []Entry
	for len(out) < n {
		e := Entry{
			ID:             ID{Namespace: fmt.Sprintf("ns%d", r.IntN(4)), Name: fmt.Sprintf("Ext-%d", r.IntN(6))},
			Version:        fmt.Sprintf("%d.%d.%d", r.IntN(3), r.IntN(12), r.IntN(3)),
			Platform:       platforms[r.IntN(len(platforms))],
			Published:      time.Date(2026, 1, 1+r.IntN(300), 0, 0, 0, 0, time.UTC),
			ManifestDigest: DigestBytes(fmt.Appendf(nil, "m%d", len(out))),
			ManifestSize:   int64(100 + r.IntN(1000)),
			VsixSHA256:     strings.TrimPrefix(DigestBytes(fmt.Appendf(nil, "v%d", len(out))), "sha256:"),
			VsixSize:       int64(1000 + r.IntN(1000)),
			Description:    texts[r.IntN(len(texts))],
			Categories:     []string{texts[r.IntN(len(texts))]},
		}
		if r.IntN(4) == 0 {
			e.Version += "-rc." + fmt.Sprint(r.IntN(3))
			e.PreRelease = true
		}
		if seen[e.Key()] {
			continue
		}
		seen[e.Key()] = true
		out = append(out, e)
	}
	return out
}

// TestSpliceShard: for random shards and changes, SpliceShard gives the
// bytes EncodeShard gives the changed entries, and counts the kept ones.
func TestSpliceShard(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 1))
	for i := range 300 {
		all := spliceEntries(r, 2+r.IntN(60))
		nBase := 1 + r.IntN(len(all)-1)
		base, more := slices.Clone(all[:nBase]), all[nBase:]
		baseData, err := EncodeShard("a", slices.Clone(base))
		if err != nil {
			t.Fatal(err)
		}
		remove := map[string]bool{}
		var want []Entry
		for _, e := range base {
			if r.IntN(3) == 0 {
				remove[e.Key()] = true
				continue
			}
			want = append(want, e)
		}
		add := slices.Clone(more[:r.IntN(len(more)+1)])
		want = append(want, add...)
		if len(want) == 0 {
			continue
		}
		wantData, err := EncodeShard("a", slices.Clone(want))
		if err != nil {
			t.Fatal(err)
		}
		got, kept, err := SpliceShard(baseData, "a", remove, slices.Clone(add))
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if kept != nBase-len(remove) {
			t.Errorf("case %d: kept %d; want %d", i, kept, nBase-len(remove))
		}
		if !bytes.Equal(got, wantData) {
			t.Fatalf("case %d: spliced shard differs from EncodeShard's:\n%s\nwant:\n%s", i, got, wantData)
		}
	}
}

func TestSpliceShardRefuses(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 2))
	entries := spliceEntries(r, 6)
	base, err := EncodeShard("a", slices.Clone(entries[:4]))
	if err != nil {
		t.Fatal(err)
	}
	compact := bytes.ReplaceAll(bytes.ReplaceAll(base, []byte("\n"), nil), []byte("  "), nil)
	tests := []struct {
		name      string
		base      []byte
		remove    []string
		add       []Entry
		canonical bool // false: want ErrNotCanonical
		want      string
	}{
		{name: "remove what is not there", base: base, remove: []string{entries[5].Key()}, canonical: true, want: "1 of the 1 entries to remove are not in it"},
		{name: "add what is there", base: base, add: []Entry{entries[1]}, canonical: true, want: "is in it already"},
		{name: "add twice", base: base, add: []Entry{entries[5], entries[5]}, canonical: true, want: "is in it already"},
		{name: "remove all, add none", base: base, remove: []string{entries[0].Key(), entries[1].Key(), entries[2].Key(), entries[3].Key()}, want: "no entries left"},
		{name: "compact JSON", base: compact},
		{name: "another bin", base: bytes.Replace(base, []byte(`"bin": "a"`), []byte(`"bin": "b"`), 1)},
		{name: "a trailing space", base: append(bytes.TrimSuffix(slices.Clone(base), []byte("\n")), " \n"...)},
		{name: "fields reordered", base: bytes.Replace(base, []byte("      \"id\""), []byte("      \"idx\""), 1)},
		{name: "entries out of order", base: swapFirstEntries(t, base)},
		{name: "no entries", base: []byte("{\n  \"format\": 2,\n  \"bin\": \"a\",\n  \"entries\": [\n  ]\n}\n")},
		{name: "truncated", base: base[:len(base)/2]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			remove := map[string]bool{}
			for _, k := range tt.remove {
				remove[k] = true
			}
			_, _, err := SpliceShard(tt.base, "a", remove, tt.add)
			if err == nil {
				t.Fatal("spliced")
			}
			if errors.Is(err, ErrNotCanonical) == tt.canonical {
				t.Errorf("error %v: ErrNotCanonical %v; want %v", err, !tt.canonical, !tt.canonical)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q; want it to say %q", err, tt.want)
			}
		})
	}
}

// swapFirstEntries swaps the bytes of a shard's first two entries.
func swapFirstEntries(t *testing.T, base []byte) []byte {
	t.Helper()
	body := base[len(shardPrefix("a")):]
	chunks, err := shardChunks(body[:len(body)-len("  ]\n}\n")], "a")
	if err != nil || len(chunks) < 2 {
		t.Fatalf("%d chunks: %v", len(chunks), err)
	}
	out := slices.Clone(base[:len(shardPrefix("a"))])
	out = append(out, chunks[1].b...)
	out = append(out, ",\n"...)
	out = append(out, chunks[0].b...)
	return append(out, base[len(shardPrefix("a"))+len(chunks[0].b)+2+len(chunks[1].b):]...)
}

// FuzzSpliceShard: SpliceShard never panics on any bytes, and a shard it
// takes apart with nothing to remove or add comes back byte for byte.
func FuzzSpliceShard(f *testing.F) {
	r := rand.New(rand.NewPCG(25, 3))
	for _, n := range []int{1, 3} {
		b, err := EncodeShard("a", spliceEntries(r, n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, base []byte) {
		got, kept, err := SpliceShard(base, "a", nil, nil)
		if err != nil {
			return
		}
		if !bytes.Equal(got, base) {
			t.Fatalf("spliced with no change:\n%q\nfrom\n%q", got, base)
		}
		if kept < 1 {
			t.Fatalf("kept %d entries of a shard it took", kept)
		}
	})
}
