package transfer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
)

// BundleManifestName is the file of a bundle that lists its files: the
// bundle's commit point, written last. A directory without it is not a
// bundle, or one whose writing did not finish.
const BundleManifestName = "airvsx-bundle.txt"

// BundleMarkerName is the file a bundle's writing starts with: a
// directory holding it is a bundle, complete or not (the manifest, written
// last, says which), and never a registry.
const BundleMarkerName = "airvsx-bundle"

// bundleMarker is the marker's content.
const bundleMarker = "an airvsx bundle: airvsx-bundle.txt, written last, lists its files; apply it with airvsx copy\n"

// bundleMagic is the first line of a bundle manifest.
const bundleMagic = "airvsx-bundle 1"

// MaxBundleManifestBytes caps the manifest read from a bundle: about a
// million files.
const MaxBundleManifestBytes = 128 << 20

// maxFATFileSize is the largest file FAT32 holds (4 GiB - 1).
const maxFATFileSize = 1<<32 - 1

// The folders of a bundle: the blobs, as blobs/<repo>/<hex>, and the
// metadata files, as metadata/<name>.
const (
	bundleBlobs    = "blobs"
	bundleMetadata = "metadata"
)

// CatalogRef names one catalog of a registry's history.
type CatalogRef struct {
	Serial int64  `json:"serial"`
	Digest string `json:"digest,omitempty"` // "" for serial 0: no catalog
}

func (r CatalogRef) String() string {
	if r.Serial == 0 {
		return "serial 0 (no catalog)"
	}
	return fmt.Sprintf("serial %d (%s)", r.Serial, r.Digest)
}

// BundleFile is one file of a bundle.
type BundleFile struct {
	// Path is the file's place in the bundle: metadata/<name> or
	// blobs/<ns>/<name>/<sha256 hex>.
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"` // hex
}

// BundleManifest is what a bundle holds: the step it takes a registry
// through (From, the catalog the registry must be at, to To) and its
// files, sorted by path. Its text form, airvsx-bundle.txt, is plain
// enough to read and check by hand:
//
//	airvsx-bundle 1
//	registry: <sha256 hex of the registry's 1.root.json>
//	from: <serial> <digest>|-
//	to: <serial> <digest>
//	files: <count> <total bytes>
//
//	<sha256 hex>  <size>  <path>
//	...
//
// The line of each file is sha256sum's (hash, two spaces, path) with the
// size between.
type BundleManifest struct {
	Registry string       `json:"registry"`
	From     CatalogRef   `json:"from"`
	To       CatalogRef   `json:"to"`
	Files    []BundleFile `json:"files"`
}

// Bytes is the size of all the bundle's files.
func (m *BundleManifest) Bytes() int64 {
	var n int64
	for _, f := range m.Files {
		n += f.Size
	}
	return n
}

// Encode writes the manifest's text form.
func (m *BundleManifest) Encode() []byte {
	var b bytes.Buffer
	from := "-"
	if m.From.Serial > 0 {
		from = m.From.Digest
	}
	fmt.Fprintf(&b, "%s\nregistry: %s\nfrom: %d %s\nto: %d %s\nfiles: %d %d\n\n",
		bundleMagic, m.Registry, m.From.Serial, from, m.To.Serial, m.To.Digest, len(m.Files), m.Bytes())
	for _, f := range m.Files {
		fmt.Fprintf(&b, "%s  %d  %s\n", f.SHA256, f.Size, f.Path)
	}
	return b.Bytes()
}

// ParseBundleManifest parses a manifest's text form strictly: the header
// lines in order, every path one a bundle can hold (and FAT can store),
// the files sorted and each named once, their count and total what the
// header says. Errors name the line.
func ParseBundleManifest(data []byte) (*BundleManifest, error) {
	if len(data) > MaxBundleManifestBytes {
		return nil, fmt.Errorf("%s: more than %d bytes", BundleManifestName, MaxBundleManifestBytes)
	}
	switch {
	case !utf8.Valid(data):
		return nil, fmt.Errorf("%s: not UTF-8 text", BundleManifestName)
	case bytes.IndexByte(data, '\r') >= 0:
		return nil, fmt.Errorf("%s: a carriage return: the manifest's lines end in a line feed alone", BundleManifestName)
	case !bytes.HasSuffix(data, []byte("\n")):
		return nil, fmt.Errorf("%s: the last line does not end: the manifest is cut short", BundleManifestName)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 4096)
	line := 0
	next := func() (string, bool) {
		if !sc.Scan() {
			return "", false
		}
		line++
		return sc.Text(), true
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s line %d: %s", BundleManifestName, line, fmt.Sprintf(format, args...))
	}
	m := &BundleManifest{}
	var count, total int64
	header := []struct {
		key   string
		parse func(string) error
	}{
		{"", func(s string) error {
			if s != bundleMagic {
				return fmt.Errorf("not a bundle manifest (want %q)", bundleMagic)
			}
			return nil
		}},
		{"registry: ", func(s string) error {
			if !isHex64(s) {
				return errors.New("registry: want the 64 hex digits of a sha256")
			}
			m.Registry = s
			return nil
		}},
		{"from: ", func(s string) error { return parseRef(s, &m.From, true) }},
		{"to: ", func(s string) error { return parseRef(s, &m.To, false) }},
		{"files: ", func(s string) error {
			c, t, ok := strings.Cut(s, " ")
			var err1, err2 error
			count, err1 = strconv.ParseInt(c, 10, 64)
			total, err2 = strconv.ParseInt(t, 10, 64)
			if !ok || err1 != nil || err2 != nil || count < 0 || total < 0 || strconv.FormatInt(count, 10) != c || strconv.FormatInt(total, 10) != t {
				return errors.New("files: want COUNT TOTAL-BYTES")
			}
			return nil
		}},
		{"\x00", nil}, // the blank line
	}
	for _, h := range header {
		s, ok := next()
		if !ok {
			return nil, bad("the manifest ends in its header")
		}
		if h.parse == nil {
			if s != "" {
				return nil, bad("want a blank line after the header")
			}
			continue
		}
		v, found := strings.CutPrefix(s, h.key)
		if !found {
			return nil, bad("want %q", strings.TrimSpace(h.key))
		}
		if err := h.parse(v); err != nil {
			return nil, bad("%v", err)
		}
	}
	if m.To.Serial <= m.From.Serial {
		return nil, bad("to serial %d is not after from serial %d", m.To.Serial, m.From.Serial)
	}
	folded := map[string]bool{}
	var sum int64
	for {
		s, ok := next()
		if !ok {
			break
		}
		f, err := parseFileLine(s)
		if err != nil {
			return nil, bad("%v", err)
		}
		if n := len(m.Files); n > 0 && m.Files[n-1].Path >= f.Path {
			return nil, bad("%s: files must be sorted by path, each once", f.Path)
		}
		if k := strings.ToLower(f.Path); folded[k] {
			return nil, bad("%s: another file's path differs from it only in case (FAT and NTFS hold one)", f.Path)
		} else {
			folded[k] = true
		}
		sum += f.Size
		m.Files = append(m.Files, f)
	}
	if err := sc.Err(); err != nil {
		return nil, bad("%v", err)
	}
	if int64(len(m.Files)) != count || sum != total {
		return nil, fmt.Errorf("%s: lists %d files of %d bytes; its header says %d files of %d bytes", BundleManifestName, len(m.Files), sum, count, total)
	}
	return m, nil
}

func parseRef(s string, r *CatalogRef, zeroOK bool) error {
	n, d, ok := strings.Cut(s, " ")
	serial, err := strconv.ParseInt(n, 10, 64)
	if !ok || err != nil || strconv.FormatInt(serial, 10) != n || serial < 0 {
		return errors.New("want SERIAL DIGEST")
	}
	if serial == 0 {
		if !zeroOK || d != "-" {
			return errors.New("serial 0 goes with - (no catalog), and only in the from line")
		}
		*r = CatalogRef{}
		return nil
	}
	if !store.ValidDigest(d) {
		return fmt.Errorf("%q is not a sha256:<hex> digest", d)
	}
	*r = CatalogRef{Serial: serial, Digest: d}
	return nil
}

// parseFileLine parses "<sha256 hex>  <size>  <path>".
func parseFileLine(s string) (BundleFile, error) {
	parts := strings.SplitN(s, "  ", 3)
	if len(parts) != 3 {
		return BundleFile{}, errors.New("want SHA256  SIZE  PATH")
	}
	size, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != parts[1] {
		return BundleFile{}, fmt.Errorf("size %q is not a number of bytes", parts[1])
	}
	f := BundleFile{SHA256: parts[0], Size: size, Path: parts[2]}
	if !isHex64(f.SHA256) {
		return f, fmt.Errorf("%q is not the 64 hex digits of a sha256", f.SHA256)
	}
	if err := checkBundlePath(f); err != nil {
		return f, err
	}
	return f, nil
}

// checkBundlePath checks that f is a file a bundle holds, under a name
// FAT32 and exFAT store as it is: metadata/<metadata name>, or
// blobs/<repo>/<hex> whose hex is the file's sha256; no file over FAT32's
// 4 GiB.
func checkBundlePath(f BundleFile) error {
	if f.Size > maxFATFileSize {
		return fmt.Errorf("%s: %d bytes, more than FAT32 holds in one file (4 GiB - 1)", f.Path, f.Size)
	}
	if err := fatPath(f.Path); err != nil {
		return err
	}
	if name, ok := strings.CutPrefix(f.Path, bundleMetadata+"/"); ok {
		if err := store.CheckMetadataName(name); err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		return nil
	}
	if name, ok := strings.CutPrefix(f.Path, bundleDeltas+"/"); ok {
		if !shardMeta.MatchString(name) {
			return fmt.Errorf("%s: a delta is named for the shard it makes (%s/targets/<sha256>.shard-<bin>.json)", f.Path, bundleDeltas)
		}
		return nil
	}
	rest, ok := strings.CutPrefix(f.Path, bundleBlobs+"/")
	if !ok {
		return fmt.Errorf("%s: not under %s/, %s/ or %s/", f.Path, bundleMetadata, bundleDeltas, bundleBlobs)
	}
	repo, hexSum := path.Split(rest)
	repo = strings.TrimSuffix(repo, "/")
	if err := store.CheckRepo(repo); err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	if hexSum != f.SHA256 {
		return fmt.Errorf("%s: a blob's file is named by its sha256 %s", f.Path, f.SHA256)
	}
	return nil
}

// fatPath checks every element of a slash-separated relative path
// against FAT's and Windows' rules: not empty, ".", or "..", at most 255
// characters, none of <>:"\|?* or a control character, no trailing dot
// or space, no reserved device name.
func fatPath(p string) error {
	if p == "" || strings.HasPrefix(p, "/") {
		return fmt.Errorf("%q: not a relative path", p)
	}
	for _, e := range strings.Split(p, "/") {
		switch {
		case e == "" || e == "." || e == "..":
			return fmt.Errorf("%q: empty, . or .. element", p)
		case utf8.RuneCountInString(e) > 255:
			return fmt.Errorf("%q: an element over 255 characters", p)
		case strings.ContainsAny(e, `<>:"\|?*`) || strings.ContainsFunc(e, func(r rune) bool { return r < 0x20 || r == 0x7f }):
			return fmt.Errorf("%q: a character FAT cannot store", p)
		case strings.HasSuffix(e, ".") || strings.HasSuffix(e, " "):
			return fmt.Errorf("%q: an element ending in a dot or space", p)
		case index.WindowsReserved(e):
			return fmt.Errorf("%q: %s is a reserved device name on Windows", p, e)
		}
	}
	return nil
}

func isHex64(s string) bool {
	return len(s) == 64 && strings.IndexFunc(s, func(r rune) bool { return !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') }) < 0
}

// blobPath is where a bundle keeps the blob digest of repo.
func blobPath(repo, digest string) string {
	return bundleBlobs + "/" + repo + "/" + strings.TrimPrefix(digest, "sha256:")
}

// sortFiles sorts a manifest's files by path.
func sortFiles(files []BundleFile) {
	slices.SortFunc(files, func(a, b BundleFile) int { return strings.Compare(a.Path, b.Path) })
}
