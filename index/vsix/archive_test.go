package vsix_test

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index/vsix"
	"github.com/airvsx/airvsx/index/vsix/vsixtest"
)

// build returns the bytes of an archive.
func build(t testing.TB, b func(io.Writer) error) []byte {
	t.Helper()
	data, err := vsixtest.Bytes(b)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return data
}

// zipOf builds an archive with archive/zip directly, for headers that
// vsixtest does not offer.
func zipOf(t testing.TB, add func(zw *zip.Writer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	if err := add(zw); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func newReader(data []byte, opts vsix.Options) (*vsix.Archive, error) {
	return vsix.NewReader(bytes.NewReader(data), int64(len(data)), opts)
}

// key is what tests compare of a problem.
type key struct {
	File string
	Rule vsix.Rule
}

// problems returns the problems of a rejection, failing the test for any
// other error.
func problems(t *testing.T, a *vsix.Archive, err error) []vsix.Problem {
	t.Helper()
	if err == nil {
		a.Close()
		t.Fatalf("archive accepted; want rejection")
	}
	if a != nil {
		t.Errorf("archive %v returned with error", a)
	}
	if !errors.Is(err, vsix.ErrRejected) {
		t.Fatalf("error %v is not vsix.ErrRejected", err)
	}
	var pe *vsix.ProblemsError
	if !errors.As(err, &pe) {
		t.Fatalf("error %T is not a *vsix.ProblemsError", err)
	}
	if len(pe.Problems) == 0 {
		t.Fatalf("rejected with no problems")
	}
	for _, p := range pe.Problems {
		if p.Message == "" || p.Severity != vsix.Error {
			t.Errorf("problem %+v: want an error with a detail", p)
		}
	}
	return pe.Problems
}

func keys(ps []vsix.Problem) []key {
	out := make([]key, len(ps))
	for i, p := range ps {
		out[i] = key{p.File, p.Rule}
	}
	return out
}

func TestHostile(t *testing.T) {
	seen := map[vsix.Rule]bool{}
	for _, c := range vsixtest.Hostile() {
		t.Run(c.Name, func(t *testing.T) {
			start := time.Now()
			data := build(t, c.Build)
			t.Logf("built %d bytes in %v", len(data), time.Since(start))
			a, err := newReader(data, vsix.Options{})
			ps := problems(t, a, err)
			if !slices.Contains(keys(ps), key{c.Entry, c.Rule}) {
				t.Errorf("NewReader(%s) problems:\n%v\nwant one with file %q and rule %s", c.Name, err, c.Entry, c.Rule)
			}
			seen[c.Rule] = true
		})
	}
	// Every archive rule has a hostile case, so removing any rule fails
	// a test.
	for _, r := range []vsix.Rule{
		vsix.RuleEntryCount, vsix.RuleFileSize, vsix.RuleTotalSize, vsix.RuleRatio,
		vsix.RuleUncleanName, vsix.RuleBackslash, vsix.RuleControlChar, vsix.RuleInvalidUTF8, vsix.RuleReservedName,
		vsix.RuleDuplicate, vsix.RuleCaseFold, vsix.RuleFileIsDir, vsix.RuleNotRegular, vsix.RuleEncrypted,
		vsix.RuleSizeLie, vsix.RuleChecksum, vsix.RuleCompression, vsix.RuleCorrupt, vsix.RuleOverlap,
	} {
		if !seen[r] && !t.Failed() {
			t.Errorf("no hostile case for rule %s", r)
		}
	}
}

// TestHostileOpen checks that Open names the archive in its report.
func TestHostileOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.vsix")
	c := vsixtest.Hostile()[0]
	if err := vsixtest.Write(path, c.Build); err != nil {
		t.Fatal(err)
	}
	a, err := vsix.Open(path, vsix.Options{})
	problems(t, a, err)
	var pe *vsix.ProblemsError
	if errors.As(err, &pe) && pe.Name != path {
		t.Errorf("Open(%q): ProblemsError.Name = %q; want the path", path, pe.Name)
	}
}

// TestEveryBadEntry checks that one archive with many bad entries reports
// every one of them, not just the first.
func TestEveryBadEntry(t *testing.T) {
	data := zipOf(t, func(zw *zip.Writer) error {
		for _, h := range []*zip.FileHeader{
			{Name: "extension/package.json"},
			{Name: "../evil"},
			{Name: "extension/nul.txt"},
			{Name: "extension/ok.js"},
			{Name: "extension/OK.js"},
			{Name: "extension/secret", Flags: 1},
			{Name: "extension/a\\b"},
			{Name: "extension/package.json"},
		} {
			h.Method = zip.Deflate
			w, err := zw.CreateHeader(h)
			if err != nil {
				return err
			}
			io.WriteString(w, "{}")
		}
		h := &zip.FileHeader{Name: "extension/link"}
		h.SetMode(fs.ModeSymlink | 0o777)
		w, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		_, err = io.WriteString(w, "/etc/passwd")
		return err
	})
	a, err := newReader(data, vsix.Options{})
	got := keys(problems(t, a, err))
	want := []key{
		{"../evil", vsix.RuleUncleanName},
		{"extension/nul.txt", vsix.RuleReservedName},
		{"extension/OK.js", vsix.RuleCaseFold},
		{"extension/secret", vsix.RuleEncrypted},
		{`extension/a\b`, vsix.RuleBackslash},
		{"extension/package.json", vsix.RuleDuplicate},
		{"extension/link", vsix.RuleNotRegular},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s\nerror: %v", diff, err)
	}
}

// TestSizeLieAlsoReportsOthers checks that the data pass reports every bad
// entry too.
func TestEveryBadData(t *testing.T) {
	var bad []vsixtest.Case
	for _, c := range vsixtest.Hostile() {
		switch c.Name {
		case "size-longer", "size-shorter", "crc-mismatch", "corrupt-deflate":
			bad = append(bad, c)
		}
	}
	// Join the hostile entries of the four cases into one archive.
	data := zipOf(t, func(zw *zip.Writer) error {
		for _, c := range bad {
			z, err := zip.NewReader(bytes.NewReader(build(t, c.Build)), int64(len(build(t, c.Build))))
			if err != nil {
				return err
			}
			for _, f := range z.File {
				if f.Name == c.Entry {
					if err := zw.Copy(f); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	a, err := newReader(data, vsix.Options{})
	got := keys(problems(t, a, err))
	var want []key
	for _, c := range bad {
		want = append(want, key{c.Entry, c.Rule})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s\nerror: %v", diff, err)
	}
}

func sampleSizes(t *testing.T) (total int64, entries int, sizes map[string]int64) {
	t.Helper()
	sizes = map[string]int64{}
	for name, content := range vsixtest.SampleFiles() {
		sizes[name] = int64(len(content))
		total += int64(len(content))
	}
	return total, len(sizes), sizes
}

func TestLimits(t *testing.T) {
	total, n, sizes := sampleSizes(t)
	var big []key // sample files over 200 bytes
	names := slices.Sorted(func(yield func(string) bool) {
		for name := range sizes {
			if !yield(name) {
				return
			}
		}
	})
	for _, name := range names {
		if sizes[name] > 200 {
			big = append(big, key{name, vsix.RuleFileSize})
		}
	}
	sample := build(t, vsixtest.Sample())
	tests := []struct {
		name string
		opts vsix.Options
		want []key // nil: accepted
	}{
		{"defaults", vsix.Options{}, nil},
		{"entries-at-limit", vsix.Options{MaxEntries: n}, nil},
		{"entries", vsix.Options{MaxEntries: 3}, []key{{"", vsix.RuleEntryCount}}},
		{"total-at-limit", vsix.Options{MaxTotalBytes: total}, nil},
		{"total", vsix.Options{MaxTotalBytes: total - 1}, []key{{"", vsix.RuleTotalSize}}},
		{"file", vsix.Options{MaxFileBytes: 200}, big},
		{"archive-at-limit", vsix.Options{MaxArchiveBytes: int64(len(sample))}, nil},
		{"archive", vsix.Options{MaxArchiveBytes: int64(len(sample)) - 1}, []key{{"", vsix.RuleArchiveSize}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := newReader(sample, tt.opts)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("NewReader(sample, %+v) = %v; want success", tt.opts, err)
				}
				return
			}
			got := keys(problems(t, a, err))
			sort.Slice(got, func(i, j int) bool { return got[i].File < got[j].File })
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("NewReader(sample, %+v) problems (-want +got):\n%s", tt.opts, diff)
			}
		})
	}
}

func TestRatio(t *testing.T) {
	content := bytes.Repeat([]byte{'a'}, 100000)
	data := zipOf(t, func(zw *zip.Writer) error {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: "a.js", Method: zip.Deflate})
		if err != nil {
			return err
		}
		_, err = w.Write(content)
		return err
	})
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	f := z.File[0]
	ratio := int64(f.UncompressedSize64 / f.CompressedSize64) // rounded down
	if _, err := newReader(data, vsix.Options{MaxRatio: ratio + 1}); err != nil {
		t.Errorf("MaxRatio %d (above the ratio): %v", ratio+1, err)
	}
	a, err := newReader(data, vsix.Options{MaxRatio: ratio})
	if diff := cmp.Diff([]key{{"a.js", vsix.RuleRatio}}, keys(problems(t, a, err))); diff != "" {
		t.Errorf("MaxRatio %d (below the ratio) (-want +got):\n%s", ratio, diff)
	}
}

// TestOverflow checks that sizes near the top of uint64 and int64 neither
// wrap the total nor the ratio computation.
func TestOverflow(t *testing.T) {
	raw := func(name string, n uint64) func(zw *zip.Writer) error {
		return func(zw *zip.Writer) error {
			w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate, CompressedSize64: 2, UncompressedSize64: n})
			if err == nil {
				_, err = w.Write([]byte{3, 0}) // an empty stream
			}
			return err
		}
	}
	many := func(adds ...func(zw *zip.Writer) error) []byte {
		return zipOf(t, func(zw *zip.Writer) error {
			for _, add := range adds {
				if err := add(zw); err != nil {
					return err
				}
			}
			return nil
		})
	}
	max := vsix.Options{MaxFileBytes: math.MaxInt64, MaxTotalBytes: math.MaxInt64, MaxRatio: math.MaxInt64}
	tests := []struct {
		name string
		data []byte
		opts vsix.Options
		want []key
	}{
		{"sum-wraps-uint64", many(raw("a", 1<<63), raw("b", 1<<63), raw("c", 1)), max, []key{
			{"a", vsix.RuleFileSize}, {"b", vsix.RuleFileSize}, {"", vsix.RuleTotalSize},
		}},
		{"max-uint64", many(raw("a", math.MaxUint64)), max, []key{
			{"a", vsix.RuleFileSize}, {"a", vsix.RuleRatio}, {"", vsix.RuleTotalSize},
		}},
		// 2^62+1 bytes from 2 is just over a ratio of 2^61.
		{"ratio-over-limit", many(raw("a", 1<<62+1)), vsix.Options{MaxRatio: 1 << 61, MaxTotalBytes: math.MaxInt64}, []key{
			{"a", vsix.RuleRatio},
		}},
		// 2^62 bytes from 2 is at the limit: the data pass finds the lie.
		{"ratio-at-limit", many(raw("a", 1<<62)), vsix.Options{MaxRatio: 1 << 61, MaxTotalBytes: math.MaxInt64}, []key{
			{"a", vsix.RuleSizeLie},
		}},
		{"sum-wraps-int64", many(raw("a", math.MaxInt64/2+1), raw("b", math.MaxInt64/2+1)), max, []key{
			{"", vsix.RuleTotalSize},
		}},
		{"defaults", many(raw("a", math.MaxUint64), raw("b", math.MaxUint64)), vsix.Options{}, []key{
			{"a", vsix.RuleFileSize}, {"a", vsix.RuleRatio}, {"b", vsix.RuleFileSize}, {"b", vsix.RuleRatio}, {"", vsix.RuleTotalSize},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := newReader(tt.data, tt.opts)
			if diff := cmp.Diff(tt.want, keys(problems(t, a, err))); diff != "" {
				t.Errorf("problems (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

func TestNegativeOptions(t *testing.T) {
	sample := build(t, vsixtest.Sample())
	for _, opts := range []vsix.Options{{MaxEntries: -1}, {MaxRatio: -1}, {MaxFileBytes: -1}, {MaxTotalBytes: -1}, {MaxArchiveBytes: -1}} {
		if _, err := newReader(sample, opts); err == nil || errors.Is(err, vsix.ErrRejected) {
			t.Errorf("NewReader(sample, %+v) = %v; want an options error", opts, err)
		}
	}
}

func TestNotZip(t *testing.T) {
	sample := build(t, vsixtest.Sample())
	tests := map[string][]byte{
		"empty":        nil,
		"text":         []byte("not a zip file at all"),
		"truncated":    sample[:len(sample)/2],
		"no-directory": sample[:len(sample)-22],
		"zeros":        make([]byte, 4096),
	}
	for name, data := range tests {
		t.Run(name, func(t *testing.T) {
			a, err := newReader(data, vsix.Options{})
			if diff := cmp.Diff([]key{{"", vsix.RuleNotZip}}, keys(problems(t, a, err))); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("open", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "text.vsix")
		if err := os.WriteFile(path, []byte("hello"), 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := vsix.Open(path, vsix.Options{})
		problems(t, a, err)
		if pe := (*vsix.ProblemsError)(nil); errors.As(err, &pe) && pe.Name != path {
			t.Errorf("Name = %q; want %q", pe.Name, path)
		}
	})
	t.Run("broken-local-header", func(t *testing.T) {
		data := bytes.Clone(sample)
		copy(data, "XXXX") // the first local header's signature
		a, err := newReader(data, vsix.Options{})
		got := keys(problems(t, a, err))
		if len(got) != 1 || got[0].Rule != vsix.RuleNotZip || got[0].File == "" {
			t.Errorf("problems %v; want one not-zip problem naming the entry", got)
		}
	})
}

// failingReaderAt fails every read at or after off.
type failingReaderAt struct {
	r   io.ReaderAt
	off int64
}

var errDisk = errors.New("disk on fire")

func (f failingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.off {
		return 0, errDisk
	}
	return f.r.ReadAt(p, off)
}

func TestIOError(t *testing.T) {
	sample := build(t, vsixtest.Sample())
	for _, off := range []int64{0, 100, int64(len(sample)) - 10} {
		_, err := vsix.NewReader(failingReaderAt{bytes.NewReader(sample), off}, int64(len(sample)), vsix.Options{})
		if !errors.Is(err, errDisk) || errors.Is(err, vsix.ErrRejected) {
			t.Errorf("NewReader failing at %d = %v; want a plain error wrapping the I/O error", off, err)
		}
	}
	_, err := vsix.Open(filepath.Join(t.TempDir(), "missing.vsix"), vsix.Options{})
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, vsix.ErrRejected) {
		t.Errorf("Open(missing) = %v; want fs.ErrNotExist", err)
	}
	_, err = vsix.Open(t.TempDir(), vsix.Options{})
	if err == nil || errors.Is(err, vsix.ErrRejected) {
		t.Errorf("Open(directory) = %v; want a plain error", err)
	}
}

// layered is a valid archive with explicit and implied directories, a
// stored file, an empty file and a larger deflated one.
func layered(t testing.TB) (data []byte, files map[string]string) {
	files = vsixtest.SampleFiles()
	files["extension/dist/"] = ""
	files["extension/dist/main.js"] = strings.Repeat("console.log('hello, world');\n", 5000)
	files["extension/media/empty.txt"] = ""
	files["extension/media/deep/er/icon.svg"] = "<svg/>"
	files["extension/ünïcode.md"] = "ü"
	data = zipOf(t, func(zw *zip.Writer) error {
		for _, name := range slices.Sorted(maps.Keys(files)) {
			method := zip.Deflate
			if strings.HasSuffix(name, ".svg") {
				method = zip.Store
			}
			w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
			if err != nil {
				return err
			}
			io.WriteString(w, files[name])
		}
		return nil
	})
	delete(files, "extension/dist/")
	return data, files
}

func TestGood(t *testing.T) {
	data, files := layered(t)
	path := filepath.Join(t.TempDir(), "good.vsix")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := vsix.Open(path, vsix.Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer a.Close()

	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var want []vsix.Entry
	for _, f := range z.File {
		want = append(want, vsix.Entry{
			Name:           strings.TrimSuffix(f.Name, "/"),
			Size:           int64(f.UncompressedSize64),
			CompressedSize: int64(f.CompressedSize64),
			Dir:            strings.HasSuffix(f.Name, "/"),
		})
	}
	if diff := cmp.Diff(want, a.Entries()); diff != "" {
		t.Errorf("Entries() (-want +got):\n%s", diff)
	}

	for name, content := range files {
		got, err := a.ReadFile(name)
		if err != nil || string(got) != content {
			t.Errorf("ReadFile(%q) = %.20q, %v; want %.20q", name, got, err, content)
		}
	}
	if err := fstest.TestFS(a, slices.Collect(maps.Keys(files))...); err != nil {
		t.Errorf("fstest.TestFS: %v", err)
	}
	for _, name := range []string{"missing", "../x", "/extension", "extension/"} {
		if _, err := a.ReadFile(name); err == nil {
			t.Errorf("ReadFile(%q) succeeded; want an error", name)
		}
	}
	if _, err := a.ReadFile("extension"); err == nil {
		t.Errorf("ReadFile(directory) succeeded; want an error")
	}
	if got, err := fs.ReadDir(a, "extension/media"); err != nil || len(got) != 2 || got[0].Name() != "deep" || !got[0].IsDir() {
		t.Errorf("ReadDir(extension/media) = %v, %v; want [deep/ empty.txt]", got, err)
	}
}

// mutableReaderAt lets a test change the archive after Open checked it.
type mutableReaderAt struct{ b []byte }

func (m *mutableReaderAt) ReadAt(p []byte, off int64) (int, error) {
	return bytes.NewReader(m.b).ReadAt(p, off)
}

// changed returns an archive whose stored file main.js Open has checked,
// and then changes its bytes so that reads fail the CRC-32.
func changed(t *testing.T) *vsix.Archive {
	t.Helper()
	content := strings.Repeat("x", 100)
	data := zipOf(t, func(zw *zip.Writer) error {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: "extension/main.js", Method: zip.Store})
		if err == nil {
			_, err = io.WriteString(w, content)
		}
		return err
	})
	m := &mutableReaderAt{data}
	a, err := vsix.NewReader(m, int64(len(data)), vsix.Options{})
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte(content))
	data[i+50] = 'y'
	return a
}

func TestReadChecksData(t *testing.T) {
	a := changed(t)
	_, err := a.ReadFile("extension/main.js")
	var pe *vsix.ProblemsError
	if !errors.As(err, &pe) || !slices.Contains(keys(pe.Problems), key{"extension/main.js", vsix.RuleChecksum}) {
		t.Errorf("ReadFile(changed) = %v; want a crc-mismatch naming the entry", err)
	}
	if _, err := fs.ReadFile(fsOnly{a}, "extension/main.js"); !errors.Is(err, vsix.ErrRejected) {
		t.Errorf("Open+Read(changed) = %v; want a crc-mismatch", err)
	}
}

// fsOnly hides every method but Open.
type fsOnly struct{ fsys fs.FS }

func (f fsOnly) Open(name string) (fs.File, error) { return f.fsys.Open(name) }

func Example() {
	data, _ := vsixtest.Bytes(vsixtest.Hostile()[0].Build)
	_, err := vsix.NewReader(bytes.NewReader(data), int64(len(data)), vsix.Options{})
	fmt.Println(err)
	// Output:
	// 1 problem(s)
	// 	../x: unclean-name: ".." path element
}
