package install

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/internal/strictjson"
	"github.com/airvsx/airvsx/policies"
)

// IndexFile is the name of the record of installed extensions in an
// extensions directory.
const IndexFile = "installed.json"

// IndexFormat is the format version of installed.json this package
// writes and reads.
const IndexFormat = 1

// MaxIndexBytes caps how much of installed.json Decode reads: 64 MiB.
const MaxIndexBytes = 64 << 20

// Source kinds.
const (
	// SourceRegistry: installed from a registry's signed catalog.
	SourceRegistry = "registry"
	// SourceLocalFile: installed from a .vsix file given by hand; there is
	// no catalog and no upstream signature behind it.
	SourceLocalFile = "local file"
)

// Index is installed.json: every installed extension, one record per
// extension ID, sorted by ID.
type Index struct {
	Format     int      `json:"format"`
	Extensions []Record `json:"extensions"`
}

// Record is one installed extension.
type Record struct {
	ID       index.ID       `json:"id"`
	Version  string         `json:"version"`
	Platform index.Platform `json:"platform"`
	// Dir is the extension's folder in the extensions directory
	// (FolderName of ID, Version and Platform); it holds what the package
	// has under extension/, so package.json is at its top.
	Dir string `json:"dir"`
	// VsixSHA256 is the lower-case hex sha256 of the .vsix installed.
	VsixSHA256 string `json:"vsixSha256"`
	// TreeHash is the hash of the unpacked files (see TreeHash), and Files
	// lists them, so a changed tree can be named file by file.
	TreeHash string     `json:"treeHash"`
	Files    []FileHash `json:"files"`
	Source   Source     `json:"source"`

	// Main is package.json main, the script the host loads; "" for an
	// extension without code (a theme, a pack).
	Main string `json:"main,omitempty"`
	// Activation lists the activation events the host honours, explicit
	// and implied by contributes.commands; Eager is set when "*" is among
	// them (activation at start-up).
	Activation []string `json:"activationEvents,omitempty"`
	Eager      bool     `json:"eager"`
	// Ignored lists the activation events installed with
	// --allow-partial-activation that the host never fires.
	Ignored []string `json:"ignoredActivationEvents,omitempty"`
	// Dependencies and ExtensionPack are package.json's
	// extensionDependencies and extensionPack.
	Dependencies  []index.ID `json:"dependencies,omitempty"`
	ExtensionPack []index.ID `json:"extensionPack,omitempty"`

	// Declared is what the extension declares in package.json
	// capabilities; Capabilities is what it gets (declared, or declared by
	// the policy, and granted), each with the policy rule that grants it.
	Declared     index.CapabilitySet `json:"declaredCapabilities,omitempty"`
	Capabilities []Grant             `json:"capabilities,omitempty"`
	// AllowedHosts are the hosts the network broker lets it reach and
	// Programs the programs the spawn broker lets it start (the policy's
	// hosts and programs; see policies.Grant). Present only with network,
	// respectively spawn, among Capabilities.
	AllowedHosts []string `json:"allowedHosts,omitempty"`
	Programs     []string `json:"programs,omitempty"`

	Installed time.Time `json:"installed"`
	// Enabled is false when the extension must not run; Reason says why.
	Enabled bool   `json:"enabled"`
	Reason  string `json:"disabledReason,omitempty"`
	// LastActivation is when the host last activated the extension; zero
	// until it has.
	LastActivation time.Time `json:"lastActivation,omitzero"`
	// Seal is SealScheme and the HMAC-SHA256, under the key in the
	// launcher's state directory (SealKeyFile), of the record's JSON
	// without the seal. Every write of installed.json seals every record;
	// a record whose seal is missing or does not verify (one that
	// something else wrote or changed) is read disabled, without grants.
	Seal string `json:"seal,omitempty"`
}

// Source says where an installed package came from.
type Source struct {
	// Kind is SourceRegistry or SourceLocalFile.
	Kind string `json:"kind"`
	// Registry is the place as the user gave it, CatalogSerial and
	// CatalogDigest the catalog the entry was verified against, and
	// ManifestDigest the entry's OCI manifest (registry installs only).
	Registry       string `json:"registry,omitempty"`
	CatalogSerial  int64  `json:"catalogSerial,omitempty"`
	CatalogDigest  string `json:"catalogDigest,omitempty"`
	ManifestDigest string `json:"manifestDigest,omitempty"`
	// File is the absolute path of the .vsix (local file installs only).
	File string `json:"file,omitempty"`
	// UpstreamSigned says whether the catalog records an upstream
	// signature for the package; always false for a local file.
	UpstreamSigned bool `json:"upstreamSigned"`
}

// Grant is one effective capability and the policy rule that grants it.
type Grant struct {
	Capability index.Capability `json:"capability"`
	// Rule names the rule: "capabilities[0] (ns.name)".
	Rule string `json:"rule"`
	// DeclaredByPolicy says the extension does not declare it; the policy
	// declares it on its behalf.
	DeclaredByPolicy bool `json:"declaredByPolicy,omitempty"`
}

// FileHash is one unpacked file: its slash-separated path below the
// extension's folder and the lower-case hex sha256 of its content.
type FileHash struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Effective returns the record's effective capabilities.
func (r *Record) Effective() index.CapabilitySet {
	var cs []index.Capability
	for _, g := range r.Capabilities {
		cs = append(cs, g.Capability)
	}
	return index.NewCapabilitySet(cs...)
}

// NotGranted returns what the extension declares in package.json and
// does not get: no rule of the policy it was installed with grants it.
func (r *Record) NotGranted() index.CapabilitySet {
	eff := r.Effective()
	var out index.CapabilitySet
	for _, c := range r.Declared {
		if !eff.Has(c) {
			out = append(out, c)
		}
	}
	return out
}

// String returns "ns.name@version" plus "@platform" when not universal.
func (r *Record) String() string {
	s := r.ID.String() + "@" + r.Version
	if r.Platform != index.Universal {
		s += "@" + string(r.Platform)
	}
	return s
}

// FolderName returns the folder an extension is unpacked into:
// "<ns>.<name>-<version>", plus "@<platform>" for a platform-specific
// build. The ID is lower-cased, as VS Code names its extension folders
// (identity ignores case, and extensions directories live on
// case-insensitive file systems too); the version is kept as written.
// VS Code appends the platform with "-"; airvsx uses "@", as everywhere
// else, because "-" also starts a SemVer pre-release ("1.0.0-rc-linux-x64"
// would be ambiguous).
func FolderName(id index.ID, version string, platform index.Platform) string {
	s := id.Key() + "-" + version
	if platform != index.Universal && platform != "" {
		s += "@" + string(platform)
	}
	return s
}

// Find returns the record of id, or nil.
func (x *Index) Find(id index.ID) *Record {
	for i := range x.Extensions {
		if x.Extensions[i].ID.Equal(id) {
			return &x.Extensions[i]
		}
	}
	return nil
}

// put adds or replaces the record of r.ID and keeps the order.
func (x *Index) put(r Record) {
	if old := x.Find(r.ID); old != nil {
		*old = r
	} else {
		x.Extensions = append(x.Extensions, r)
	}
	x.sort()
}

// remove drops the record of id.
func (x *Index) remove(id index.ID) {
	x.Extensions = slices.DeleteFunc(x.Extensions, func(r Record) bool { return r.ID.Equal(id) })
}

func (x *Index) sort() {
	slices.SortFunc(x.Extensions, func(a, b Record) int { return a.ID.Compare(b.ID) })
}

// Encode returns installed.json: indented JSON with a final newline,
// records sorted by ID.
func (x *Index) Encode() ([]byte, error) {
	c := *x
	c.Format = IndexFormat
	c.Extensions = slices.Clone(x.Extensions)
	if c.Extensions == nil {
		c.Extensions = []Record{}
	}
	c.sort()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	b, err := strictjson.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", IndexFile, err)
	}
	return b, nil
}

// Decode reads installed.json strictly: more than MaxIndexBytes, unknown
// fields, trailing data and any record that does not Validate are errors.
// installed.json is on disk, where anything could have changed it, so it
// is read like any other untrusted input.
func Decode(r io.Reader) (*Index, error) {
	var x Index
	if err := strictjson.Read(r, MaxIndexBytes, &x); err != nil {
		return nil, err
	}
	if err := x.Validate(); err != nil {
		return nil, err
	}
	if x.Extensions == nil {
		x.Extensions = []Record{}
	}
	return &x, nil
}

// Validate checks the format and every record, and that no ID has two
// records. It returns every problem joined.
func (x *Index) Validate() error {
	var errs []error
	if x.Format != IndexFormat {
		errs = append(errs, fmt.Errorf("format: %d is not the supported %d", x.Format, IndexFormat))
	}
	seen := make(map[string]bool)
	for i := range x.Extensions {
		r := &x.Extensions[i]
		if err := r.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("extensions[%d]: %w", i, err))
			continue
		}
		if seen[r.ID.Key()] {
			errs = append(errs, fmt.Errorf("extensions[%d]: a second record for %s", i, r.ID))
		}
		seen[r.ID.Key()] = true
	}
	return errors.Join(errs...)
}

// Validate checks that every field is well formed, that Dir is the
// record's FolderName (a record never points outside the extensions
// directory), and that Files hash to TreeHash.
func (r *Record) Validate() error {
	var bad []string
	if err := r.ID.Validate(); err != nil {
		bad = append(bad, "id: "+err.Error())
	}
	if _, err := index.ParseVersion(r.Version); err != nil {
		bad = append(bad, "version: "+err.Error())
	}
	if !r.Platform.Valid() {
		bad = append(bad, fmt.Sprintf("platform: unknown target platform %q", r.Platform))
	}
	if len(bad) == 0 {
		if want := FolderName(r.ID, r.Version, r.Platform); r.Dir != want {
			bad = append(bad, fmt.Sprintf("dir: %q; want %q", r.Dir, want))
		}
	}
	if !isHex64(r.VsixSHA256) {
		bad = append(bad, fmt.Sprintf("vsixSha256: %q is not 64 lower-case hex", r.VsixSHA256))
	}
	for i, f := range r.Files {
		if !validTreePath(f.Path) || !isHex64(f.SHA256) || i > 0 && r.Files[i-1].Path >= f.Path {
			bad = append(bad, fmt.Sprintf("files[%d]: %q is not a clean path in order with a sha256", i, f.Path))
			break
		}
	}
	if got := treeHashOf(r.Files); r.TreeHash != got {
		bad = append(bad, fmt.Sprintf("treeHash: %q; the files hash to %s", r.TreeHash, got))
	}
	switch r.Source.Kind {
	case SourceRegistry:
		if r.Source.Registry == "" || r.Source.CatalogSerial < 1 {
			bad = append(bad, "source: a registry source needs the registry and the catalog serial")
		}
	case SourceLocalFile:
		if r.Source.File == "" || r.Source.UpstreamSigned {
			bad = append(bad, "source: a local file source needs the file and has no upstream signature")
		}
	default:
		bad = append(bad, fmt.Sprintf("source.kind: %q; want %q or %q", r.Source.Kind, SourceRegistry, SourceLocalFile))
	}
	if r.Main != "" && !validTreePath(strings.TrimPrefix(r.Main, "./")) {
		bad = append(bad, fmt.Sprintf("main: %q is not a path inside the extension", r.Main))
	}
	for _, c := range append(slices.Clone(r.Declared), r.Effective()...) {
		if _, err := index.ParseCapability(string(c)); err != nil {
			bad = append(bad, "capabilities: "+err.Error())
		}
	}
	bad = append(bad, checkList("allowedHosts", r.AllowedHosts, r.Effective().Has(index.Network), index.Network, policies.ParseHost)...)
	bad = append(bad, checkList("programs", r.Programs, r.Effective().Has(index.Spawn), index.Spawn, policies.ParseProgram)...)
	for _, id := range append(slices.Clone(r.Dependencies), r.ExtensionPack...) {
		if err := id.Validate(); err != nil {
			bad = append(bad, "dependencies: "+err.Error())
		}
	}
	if r.Eager != slices.Contains(r.Activation, "*") {
		bad = append(bad, "eager: disagrees with activationEvents")
	}
	if r.Installed.IsZero() {
		bad = append(bad, "installed: missing")
	}
	if !validSeal(r.Seal) {
		bad = append(bad, fmt.Sprintf("seal: %q is not %s and 64 lower-case hex digits", r.Seal, SealScheme))
	}
	if r.Enabled != (r.Reason == "") {
		bad = append(bad, "enabled: a disabled extension needs a reason, an enabled one has none")
	}
	if len(bad) > 0 {
		name := r.ID.String()
		if r.ID.IsZero() {
			name = "(no id)"
		}
		return fmt.Errorf("%s: %s", name, strings.Join(bad, "; "))
	}
	return nil
}

// checkList checks a broker's list: only with the capability it serves,
// each item in the canonical form parse returns, sorted, once each.
func checkList(field string, list []string, has bool, c index.Capability, parse func(string) (string, error)) []string {
	if len(list) == 0 {
		return nil
	}
	if !has {
		return []string{fmt.Sprintf("%s: listed without the %s capability", field, c)}
	}
	for i, s := range list {
		if v, err := parse(s); err != nil || v != s {
			return []string{fmt.Sprintf("%s[%d]: %q is not in canonical form", field, i, s)}
		}
		if i > 0 && list[i-1] >= s {
			return []string{fmt.Sprintf("%s[%d]: %q is not sorted or repeated", field, i, s)}
		}
	}
	return nil
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
