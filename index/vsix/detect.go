package vsix

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/airvsx/airvsx/index"
)

// Finding kinds. A finding is a hint for a reviewer and a policy, never a
// verdict: static detection is easy to evade (require("child_"+"process"),
// eval, a JavaScript file without a .js name), which is why the host is
// confined by the kernel whatever Detect says.
const (
	// The kinds of a require or import of a Node built-in module: which
	// module is which kind is index.NodeModules' Finding.
	FindingSpawn           = "spawn"            // child_process, cluster
	FindingNetwork         = "network"          // net, http, https, http2, dgram, tls, dns, dns/promises
	FindingWorker          = "worker"           // worker_threads
	FindingNativeAddon     = "native-addon"     // a .node file
	FindingExecutable      = "executable"       // ELF, PE or Mach-O by magic
	FindingEagerActivation = "eager-activation" // activationEvents "*"
	// FindingIncomplete says a scan limit was hit: File was scanned only in
	// part, or (File "") later files were not scanned at all.
	FindingIncomplete = "scan-incomplete"
)

// Default limits of DetectOptions.
const (
	DefaultDetectMaxFileBytes  = 8 << 20
	DefaultDetectMaxTotalBytes = 256 << 20
)

// DetectOptions limits what Detect reads. The zero value works.
type DetectOptions struct {
	// MaxFileBytes is how many bytes of one JavaScript file are scanned;
	// the rest is not. 0 means DefaultDetectMaxFileBytes (8 MiB).
	MaxFileBytes int64
	// MaxTotalBytes is how many JavaScript bytes are scanned in all; later
	// files are not scanned. 0 means DefaultDetectMaxTotalBytes (256 MiB).
	MaxTotalBytes int64
	// ManifestFile is the File of an eager-activation finding. "" means
	// extension/package.json.
	ManifestFile string
}

// Finding is a statically detected capability. Not a verdict.
type Finding struct {
	Kind string `json:"kind"`
	// File is the archive path the finding is in.
	File string `json:"file"`
	// Trigger is what was seen: require("child_process"), import "node:https",
	// import("net"), ELF magic, .node file, activationEvents "*".
	Trigger string `json:"trigger"`
}

// String formats the finding as "file: kind: trigger".
func (f Finding) String() string { return f.File + ": " + f.Kind + ": " + f.Trigger }

// Capability returns the capability the finding needs, "" when none maps
// (a native addon or a bundled executable is flagged but needs no
// capability of its own: running a program needs spawn). The kinds of
// module findings map as index.NodeModules says: a worker needs spawn,
// as the host's seat belt requires (its code runs where the seat belt does
// not reach).
func (f Finding) Capability() index.Capability {
	for _, m := range index.NodeModules() {
		if m.Finding != "" && m.Finding == f.Kind {
			return m.Capability
		}
	}
	return ""
}

// detectModules returns the Node built-in modules Detect looks for, with
// their finding kind: those of index.NodeModules that have one, sorted by
// name.
func detectModules() []index.NodeModule {
	ms := slices.DeleteFunc(index.NodeModules(), func(m index.NodeModule) bool { return m.Finding == "" })
	slices.SortFunc(ms, func(a, b index.NodeModule) int { return strings.Compare(a.Module, b.Module) })
	return ms
}

// Detect scans an extension for capabilities it uses:
//
//   - JavaScript files under extension/ (.js, .mjs and .cjs, any case, and the
//     files main and browser name) for require("m"), import("m"),
//     import "m" and ... from "m" of the modules index.NodeModules gives a
//     finding kind, with or without "node:", in ', " or ` quotes;
//   - every file for native code: a .node name (native-addon); ELF, PE
//     ("MZ" and a "PE\0\0" header) or Mach-O (thin or fat, either byte
//     order) magic (executable), reading only the headers;
//   - the manifest m (which may be nil) for activationEvents "*".
//
// It returns one finding per (kind, file, trigger), sorted by file, kind
// and trigger, and an error joining every file it could not read (the
// findings are still complete for the other files).
func Detect(fsys fs.FS, m *Manifest, opts DetectOptions) ([]Finding, error) {
	found, _, errs := detect(fsys, m, opts)
	var all []error
	for _, e := range errs {
		all = append(all, e)
	}
	return found, errors.Join(all...)
}

// fileError is a file Detect could not read.
type fileError struct {
	File string
	Err  error
}

func (e *fileError) Error() string { return fmt.Sprintf("read %s: %v", e.File, e.Err) }
func (e *fileError) Unwrap() error { return e.Err }

type detector struct {
	fsys     fs.FS
	opts     DetectOptions
	budget   int64 // JavaScript bytes left to scan
	skipped  int   // JavaScript files not scanned for lack of budget
	entries  map[string]bool
	seen     map[Finding]bool
	findings []Finding
	errs     []*fileError
	api      apiScanner
}

// detect is Detect, and also returns the names of module vscode the
// JavaScript files read (apiScanner.scan), sorted.
func detect(fsys fs.FS, m *Manifest, opts DetectOptions) ([]Finding, []string, []*fileError) {
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = DefaultDetectMaxFileBytes
	}
	if opts.MaxTotalBytes <= 0 {
		opts.MaxTotalBytes = DefaultDetectMaxTotalBytes
	}
	if opts.ManifestFile == "" {
		opts.ManifestFile = PackageJSONPath
	}
	d := &detector{fsys: fsys, opts: opts, budget: opts.MaxTotalBytes, entries: make(map[string]bool), seen: make(map[Finding]bool)}
	if m != nil {
		for _, e := range m.Activation() {
			if e.Eager() {
				d.add(FindingEagerActivation, opts.ManifestFile, `activationEvents "*"`)
			}
		}
		for _, entry := range []string{m.Main, m.Browser} {
			if p, ok := entryPoint(entry); ok {
				d.entries[p] = true
			}
		}
	}
	err := fs.WalkDir(fsys, ".", func(name string, de fs.DirEntry, err error) error {
		if err != nil {
			d.errs = append(d.errs, &fileError{name, err})
			if de != nil && de.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if de.Type().IsRegular() {
			d.file(name)
		}
		return nil
	})
	if err != nil {
		d.errs = append(d.errs, &fileError{".", err})
	}
	if d.api.full {
		d.add(FindingIncomplete, "", fmt.Sprintf("limit of %d vscode API names reached: later names not recorded", MaxAPIMembers))
	}
	if d.skipped > 0 {
		d.add(FindingIncomplete, "", fmt.Sprintf("total scan limit of %d bytes reached: %d JavaScript file(s) not scanned", opts.MaxTotalBytes, d.skipped))
	}
	slices.SortFunc(d.findings, func(a, b Finding) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		if c := strings.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.Trigger, b.Trigger)
	})
	return d.findings, slices.Sorted(maps.Keys(d.api.names)), d.errs
}

// entryPoint returns the archive path main or browser names, and the path
// with ".js" added (Node tries both); ok is false when the entry point is
// empty or leaves extension/ (ParseManifest reports that).
func entryPoint(entry string) (string, bool) {
	if entry == "" || strings.HasPrefix(entry, "/") || strings.Contains(entry, `\`) {
		return "", false
	}
	p := path.Join("extension", entry)
	if !strings.HasPrefix(p, "extension/") || !fs.ValidPath(p) {
		return "", false
	}
	return p, true
}

func (d *detector) add(kind, file, trigger string) {
	f := Finding{Kind: kind, File: file, Trigger: trigger}
	if !d.seen[f] {
		d.seen[f] = true
		d.findings = append(d.findings, f)
	}
}

func isJS(name string) bool {
	if !strings.HasPrefix(name, "extension/") {
		return false
	}
	switch strings.ToLower(path.Ext(name)) {
	case ".js", ".mjs", ".cjs":
		return true
	}
	return false
}

// file checks one regular file.
func (d *detector) file(name string) {
	if strings.EqualFold(path.Ext(name), ".node") {
		d.add(FindingNativeAddon, name, ".node file")
		return
	}
	js := isJS(name) || d.entries[name]
	if js && d.budget <= 0 {
		d.skipped++
		js = false
	}
	f, err := d.fsys.Open(name)
	if err != nil {
		d.errs = append(d.errs, &fileError{name, err})
		return
	}
	defer f.Close()
	if !js {
		hdr, err := readHeader(f)
		if err != nil {
			d.errs = append(d.errs, &fileError{name, err})
			return
		}
		if t := magic(hdr); t != "" {
			d.add(FindingExecutable, name, t)
		}
		return
	}
	limit := min(d.opts.MaxFileBytes, d.budget)
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		d.errs = append(d.errs, &fileError{name, err})
		return
	}
	if int64(len(data)) > limit {
		data = data[:limit]
		d.add(FindingIncomplete, name, fmt.Sprintf("only the first %d bytes scanned", limit))
	}
	d.budget -= int64(len(data))
	if t := magic(data); t != "" {
		d.add(FindingExecutable, name, t)
	}
	for _, u := range scanJS(data) {
		d.add(u.kind, name, u.trigger)
	}
	d.api.scan(data)
}

// maxPEOffset caps how far into a file the PE header is looked for.
const maxPEOffset = 64 << 10

// readHeader reads enough of a file to recognize an executable: 64 bytes,
// and up to the PE header of an "MZ" file.
func readHeader(r io.Reader) ([]byte, error) {
	hdr := make([]byte, 64)
	n, err := io.ReadFull(r, hdr)
	hdr = hdr[:n]
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	if n < 64 || hdr[0] != 'M' || hdr[1] != 'Z' {
		return hdr, nil
	}
	off := int64(binary.LittleEndian.Uint32(hdr[0x3c:]))
	if off+4 <= 64 || off+4 > maxPEOffset {
		return hdr, nil
	}
	rest := make([]byte, off+4-64)
	m, err := io.ReadFull(r, rest)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	return append(hdr, rest[:m]...), nil
}

// magic names the executable format of a file from its first bytes, or "".
func magic(b []byte) string {
	if len(b) < 4 {
		return ""
	}
	be := binary.BigEndian.Uint32(b)
	switch {
	case bytes.HasPrefix(b, []byte("\x7fELF")):
		return "ELF magic"
	case be == 0xfeedface || be == 0xfeedfacf || be == 0xcefaedfe || be == 0xcffaedfe:
		return "Mach-O magic"
	case be == 0xcafebabe || be == 0xcafebabf || be == 0xbebafeca || be == 0xbfbafeca:
		// Java class files share 0xcafebabe; a fat Mach-O has a small
		// architecture count next, a class file its version (45 or more).
		if len(b) >= 8 {
			n := binary.BigEndian.Uint32(b[4:])
			if be == 0xbebafeca || be == 0xbfbafeca {
				n = binary.LittleEndian.Uint32(b[4:])
			}
			if n > 0 && n < 20 {
				return "Mach-O fat magic"
			}
		}
	case b[0] == 'M' && b[1] == 'Z' && len(b) >= 64:
		off := int64(binary.LittleEndian.Uint32(b[0x3c:]))
		if off >= 4 && off+4 <= int64(len(b)) && bytes.Equal(b[off:off+4], []byte("PE\x00\x00")) {
			return "PE magic"
		}
	}
	return ""
}

type jsUse struct{ kind, trigger string }

// scanJS finds require, import() and static imports of detectModules in
// JavaScript source. It looks for each module name in quotes and then at
// what precedes the opening quote, so it is linear in the source and never
// matches a longer name ("httpx") or a bare word.
func scanJS(src []byte) []jsUse {
	var out []jsUse
	for _, mod := range detectModules() {
		for i := 0; ; {
			j := bytes.Index(src[i:], []byte(mod.Module))
			if j < 0 {
				break
			}
			start := i + j
			i = start + len(mod.Module)
			if i >= len(src) || !isQuote(src[i]) {
				continue
			}
			q := src[i]
			k := start
			prefix := ""
			if k >= 5 && string(src[k-5:k]) == "node:" {
				k -= 5
				prefix = "node:"
			}
			if k < 1 || src[k-1] != q {
				continue
			}
			spec := prefix + mod.Module
			if form := importForm(src[:k-1]); form != "" {
				out = append(out, jsUse{mod.Finding, fmt.Sprintf(form, spec)})
			}
		}
	}
	return out
}

func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }

// importForm looks at the source before a quoted module name and returns
// the trigger format: require(%q), import(%q) or import %q; "" when the
// string is not a module specifier.
func importForm(before []byte) string {
	before = bytes.TrimRight(before, " \t\r\n\f\v")
	if bytes.HasSuffix(before, []byte("(")) {
		before = bytes.TrimRight(before[:len(before)-1], " \t\r\n\f\v")
		switch {
		case bytes.HasSuffix(before, []byte("require")):
			// Any prefix: bundlers write __require("net").
			return "require(%q)"
		case endsWithWord(before, "import"):
			return "import(%q)"
		}
		return ""
	}
	if endsWithWord(before, "import") || endsWithWord(before, "from") {
		return "import %q"
	}
	return ""
}

// endsWithWord reports whether b ends with word, not preceded by an
// identifier character.
func endsWithWord(b []byte, word string) bool {
	if !bytes.HasSuffix(b, []byte(word)) {
		return false
	}
	i := len(b) - len(word)
	if i == 0 {
		return true
	}
	c := b[i-1]
	return !(c == '_' || c == '$' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80)
}
