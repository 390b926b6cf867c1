package index

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
)

// Finding is a capability detected statically in a package (a require of
// child_process, a bundled ELF binary, "*" activation). Findings inform the
// catalog and the admin; they are not verdicts.
type Finding struct {
	Kind    string `json:"kind"`              // spawn, network, worker, native-addon, executable, eager-activation
	File    string `json:"file,omitempty"`    // the archive entry that triggered it
	Trigger string `json:"trigger,omitempty"` // what was seen, e.g. require("child_process")
}

// Signature says whether and how upstream signed a package.
type Signature struct {
	Signed bool   `json:"signed"`          // upstream published a signature
	KeyID  string `json:"keyId,omitempty"` // the upstream key that signed it (a key of Catalog.UpstreamKeys)
}

// LocalAddition marks an entry that did not come from the upstream but
// was added to the registry by hand (airvsx add): it has no upstream
// signature; the registry's signing key, which signed the catalog it was
// added in, is what vouches for it.
type LocalAddition struct {
	// AddedBy is who added it: the TUF key ID (64 lowercase hex) of the
	// key that signed the catalog it was first listed in.
	AddedBy string `json:"addedBy"`
	// AddedAt is when, UTC, to the second.
	AddedAt time.Time `json:"addedAt"`
}

// Entry is one (extension, version, target platform) in a registry, stored
// as one OCI artifact. The manifest digest pins every byte of the artifact.
type Entry struct {
	ID         ID        `json:"id"`
	Version    string    `json:"version"` // strict SemVer
	Platform   Platform  `json:"platform"`
	PreRelease bool      `json:"preRelease,omitempty"`
	Published  time.Time `json:"published"` // upstream publish time, UTC

	// The OCI manifest of the artifact.
	ManifestDigest string `json:"manifestDigest"` // sha256:<hex>
	ManifestSize   int64  `json:"manifestSize"`

	// The .vsix exactly as published upstream.
	VsixSHA256 string `json:"vsixSha256"` // lowercase hex
	VsixSize   int64  `json:"vsixSize"`

	Upstream Signature `json:"upstreamSignature"`
	// Local is set for an entry added by hand rather than mirrored
	// (airvsx add); nil for a mirrored entry. A local entry is never
	// signed upstream, and sync keeps it whatever the policy says.
	Local *LocalAddition `json:"local,omitempty"`

	// Summary fields for listings and the site; they come from the
	// package's own manifest.
	DisplayName           string        `json:"displayName,omitempty"`
	Description           string        `json:"description,omitempty"`
	Categories            []string      `json:"categories,omitempty"`
	Tags                  []string      `json:"tags,omitempty"`
	Engine                string        `json:"engine,omitempty"` // engines.vscode as written
	Dependencies          []ID          `json:"dependencies,omitempty"`
	ExtensionPack         []ID          `json:"extensionPack,omitempty"`
	DeclaredCapabilities  CapabilitySet `json:"declaredCapabilities,omitempty"`
	DetectedCapabilities  []Finding     `json:"detectedCapabilities,omitempty"`
	License               string        `json:"license,omitempty"`
	Repository            string        `json:"repository,omitempty"`
	Homepage              string        `json:"homepage,omitempty"`
	ExtensionKind         []string      `json:"extensionKind,omitempty"`
	UntrustedWorkspaceOff bool          `json:"untrustedWorkspaceUnsupported,omitempty"`
}

// Key identifies the entry within a catalog: lower-cased
// "namespace.name@version@platform" (EntryKey).
func (e *Entry) Key() string { return EntryKey(e.ID, e.Version, e.Platform) }

// String returns "namespace.name@version" plus "@platform" when the
// platform is not universal (EntryName).
func (e *Entry) String() string { return EntryName(e.ID, e.Version, e.Platform) }

// EntryKey returns the catalog key of the build of id at version for
// platform: "namespace.name@version@platform", the ID lower-cased.
func EntryKey(id ID, version string, platform Platform) string {
	return id.Key() + "@" + version + "@" + string(platform)
}

// EntryName names the build of id at version for platform for people:
// "namespace.name@version" plus "@platform" when the platform is neither
// universal nor empty.
func EntryName(id ID, version string, platform Platform) string {
	s := id.String() + "@" + version
	if platform != Universal && platform != "" {
		s += "@" + string(platform)
	}
	return s
}

// SemVer parses the entry's version.
func (e *Entry) SemVer() (*semver.Version, error) { return ParseVersion(e.Version) }

// Validate checks that every field is well formed. It returns one error
// naming the entry and every bad field.
func (e *Entry) Validate() error {
	var bad []string
	if err := e.ID.Validate(); err != nil {
		bad = append(bad, "id: "+err.Error())
	}
	if _, err := ParseVersion(e.Version); err != nil {
		bad = append(bad, "version: "+err.Error())
	}
	if !e.Platform.Valid() {
		bad = append(bad, fmt.Sprintf("platform: unknown target platform %q", e.Platform))
	}
	if !validDigest(e.ManifestDigest) {
		bad = append(bad, fmt.Sprintf("manifestDigest: %q is not sha256:<64 lowercase hex>", e.ManifestDigest))
	}
	if e.ManifestSize <= 0 {
		bad = append(bad, fmt.Sprintf("manifestSize: %d is not positive", e.ManifestSize))
	}
	if !validHex(e.VsixSHA256) {
		bad = append(bad, fmt.Sprintf("vsixSha256: %q is not 64 lowercase hex", e.VsixSHA256))
	}
	if e.VsixSize <= 0 {
		bad = append(bad, fmt.Sprintf("vsixSize: %d is not positive", e.VsixSize))
	}
	if e.Published.IsZero() {
		bad = append(bad, "published: missing")
	}
	if l := e.Local; l != nil {
		bad = append(bad, l.validate(e.Upstream)...)
	}
	for i, d := range append(slices.Clone(e.Dependencies), e.ExtensionPack...) {
		if err := d.Validate(); err != nil {
			bad = append(bad, fmt.Sprintf("dependencies/extensionPack[%d]: %v", i, err))
		}
	}
	for _, c := range e.DeclaredCapabilities {
		if _, err := ParseCapability(string(c)); err != nil {
			bad = append(bad, "declaredCapabilities: "+err.Error())
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("entry %s: %s", e.String(), strings.Join(bad, "; "))
	}
	return nil
}

// validate returns the local addition's bad fields; up is the entry's
// upstream signature, which a local entry cannot have.
func (l *LocalAddition) validate(up Signature) []string {
	var bad []string
	if !validHex(l.AddedBy) {
		bad = append(bad, fmt.Sprintf("local.addedBy: %q is not a key ID (64 lowercase hex)", l.AddedBy))
	}
	if l.AddedAt.IsZero() {
		bad = append(bad, "local.addedAt: missing")
	}
	if up.Signed || up.KeyID != "" {
		bad = append(bad, "upstreamSignature: a locally added entry has no upstream signature")
	}
	return bad
}

// normalize puts every set-like field into its canonical order.
func (e *Entry) normalize() {
	e.Published = e.Published.UTC()
	if e.Local != nil {
		e.Local.AddedAt = e.Local.AddedAt.UTC()
	}
	e.Categories = sortedUnique(e.Categories)
	e.Tags = sortedUnique(e.Tags)
	e.Dependencies = sortedIDs(e.Dependencies)
	e.ExtensionPack = sortedIDs(e.ExtensionPack)
	e.DeclaredCapabilities = NewCapabilitySet(e.DeclaredCapabilities...)
	slices.SortFunc(e.DetectedCapabilities, func(a, b Finding) int {
		return cmp.Or(strings.Compare(a.Kind, b.Kind), strings.Compare(a.File, b.File), strings.Compare(a.Trigger, b.Trigger))
	})
	e.DetectedCapabilities = slices.Compact(e.DetectedCapabilities)
}

// SortEntries sorts entries as a catalog lists them (compareEntries),
// working out each entry's sort key once rather than in every
// comparison: a catalog of 100,000 entries sorts several times faster.
func SortEntries(entries []Entry) {
	type keyed struct {
		key, name, version string
		v                  *semver.Version // nil when Version is not SemVer
		platform           Platform
		i                  int
	}
	ks := make([]keyed, len(entries))
	for i := range entries {
		e := &entries[i]
		v, _ := ParseVersion(e.Version)
		ks[i] = keyed{key: e.ID.Key(), name: e.ID.String(), version: e.Version, v: v, platform: e.Platform, i: i}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if c := strings.Compare(a.key, b.key); c != 0 {
			return c
		}
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if a.v != nil && b.v != nil {
			if c := b.v.Compare(a.v); c != 0 {
				return c
			}
		}
		if c := strings.Compare(a.version, b.version); c != 0 {
			return c
		}
		return strings.Compare(string(a.platform), string(b.platform))
	})
	sorted := make([]Entry, len(entries))
	for j, k := range ks {
		sorted[j] = entries[k.i]
	}
	copy(entries, sorted)
}

// compareEntries orders entries by ID key, then version (SemVer order,
// newest first), then platform.
func compareEntries(a, b *Entry) int {
	if c := a.ID.Compare(b.ID); c != 0 {
		return c
	}
	av, aerr := ParseVersion(a.Version)
	bv, berr := ParseVersion(b.Version)
	if aerr == nil && berr == nil {
		if c := bv.Compare(av); c != 0 {
			return c
		}
	}
	if c := strings.Compare(a.Version, b.Version); c != 0 {
		return c
	}
	return strings.Compare(string(a.Platform), string(b.Platform))
}

func sortedUnique(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

func sortedIDs(ids []ID) []ID {
	if len(ids) == 0 {
		return nil
	}
	ids = slices.Clone(ids)
	slices.SortFunc(ids, ID.Compare)
	return slices.CompactFunc(ids, func(a, b ID) bool { return a.Equal(b) })
}

func validDigest(s string) bool {
	hex, ok := strings.CutPrefix(s, "sha256:")
	return ok && validHex(hex)
}

func validHex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
