package openvsxtest

import (
	"cmp"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/Masterminds/semver/v3"

	"github.com/airvsx/airvsx/index"
)

// maxVersions is upstream's RepositoryService.MAX_VERSIONS: allVersions
// holds at most this many versions (plus the alias keys).
const maxVersions = 100

// version is a Fixture with what the server derives from it.
type version struct {
	*Fixture
	sv        *semver.Version
	tp        index.Platform
	ts        time.Time
	sha       string // .sha256 content
	sigzip    []byte // nil when unsigned or without a package
	badSigzip []byte

	// etag is the package's storage-style ETag, computed on its first
	// download: hashing a large package again for every request would
	// make the fixture, not the client, what a benchmark measures.
	etagOnce sync.Once
	etag     string
}

// vsixETag returns the package's ETag: its MD5, hex, quoted.
func (v *version) vsixETag() string {
	v.etagOnce.Do(func() {
		sum := md5.Sum(v.VSIX)
		v.etag = `"` + hex.EncodeToString(sum[:]) + `"`
	})
	return v.etag
}

// extension groups the versions of one extension, sorted as upstream
// sorts them.
type extension struct {
	ns, name string
	versions []*version
}

func (e *extension) id() string { return e.ns + "." + e.name }

// compareVersions is upstream's order for "latest" and version lists:
// SemVer descending (a SemVer pre-release after its release), universal
// first, then target platform ascending, then newest timestamp first.
func compareVersions(a, b *version) int {
	if c := b.sv.Compare(a.sv); c != 0 {
		return c
	}
	au, bu := a.tp == index.Universal, b.tp == index.Universal
	if au != bu {
		if au {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(a.tp, b.tp); c != 0 {
		return c
	}
	return b.ts.Compare(a.ts)
}

// buildExtensions validates fixtures and groups them by extension.
func buildExtensions(fx Fixtures) (map[string]*extension, []*extension, error) {
	byKey := map[string]*extension{}
	seen := map[string]bool{}
	for i := range fx {
		f := fx[i] // copy: the caller keeps its slice
		id := index.ID{Namespace: f.Namespace, Name: f.Name}
		if err := id.Validate(); err != nil {
			return nil, nil, fmt.Errorf("fixture %d: %w", i, err)
		}
		sv, err := index.ParseVersion(f.Version)
		if err != nil {
			return nil, nil, fmt.Errorf("fixture %s: %w", f.ID(), err)
		}
		tp := f.TargetPlatform()
		if !tp.Valid() {
			return nil, nil, fmt.Errorf("fixture %s %s: unknown target platform %q", f.ID(), f.Version, tp)
		}
		var ts time.Time
		if f.Timestamp != "" {
			if ts, err = ParseTimestamp(f.Timestamp); err != nil {
				return nil, nil, fmt.Errorf("fixture %s %s: %w", f.ID(), f.Version, err)
			}
		}
		k := strings.ToLower(f.FileBase())
		if seen[k] {
			return nil, nil, fmt.Errorf("fixture %s: duplicate", f.FileBase())
		}
		seen[k] = true
		v := &version{Fixture: &f, sv: sv, tp: tp, ts: ts}
		if f.VSIX != nil {
			v.sha = index.SHA256Hex(f.VSIX)
			if !f.Unsigned {
				if v.sigzip, err = makeSigzip(f.VSIX, f.VSIX, ts); err != nil {
					return nil, nil, fmt.Errorf("fixture %s: %w", f.FileBase(), err)
				}
				bad := append([]byte("not the package: "), f.VSIX...)
				if v.badSigzip, err = makeSigzip(f.VSIX, bad, ts); err != nil {
					return nil, nil, fmt.Errorf("fixture %s: %w", f.FileBase(), err)
				}
			}
		}
		ek := id.Key()
		e := byKey[ek]
		if e == nil {
			e = &extension{ns: f.Namespace, name: f.Name}
			byKey[ek] = e
		}
		e.versions = append(e.versions, v)
	}
	var all []*extension
	for _, e := range byKey {
		slices.SortFunc(e.versions, compareVersions)
		all = append(all, e)
	}
	slices.SortFunc(all, func(a, b *extension) int {
		return strings.Compare(strings.ToLower(a.id()), strings.ToLower(b.id()))
	})
	return byKey, all, nil
}

// filter returns the versions for target platform tp ("" = all).
func (e *extension) filter(tp index.Platform) []*version {
	if tp == "" {
		return e.versions
	}
	var out []*version
	for _, v := range e.versions {
		if v.tp == tp {
			out = append(out, v)
		}
	}
	return out
}

// latest is upstream's findLatestVersionForAllUrls: the first version in
// upstream's order for tp ("" = any platform); with onlyPreRelease only
// versions flagged pre-release. Without it a pre-release can be latest.
func (e *extension) latest(tp index.Platform, onlyPreRelease bool) *version {
	for _, v := range e.filter(tp) {
		if !onlyPreRelease || v.PreRelease {
			return v
		}
	}
	return nil
}

// find resolves a version string or alias for tp ("" = any platform,
// universal preferred).
func (e *extension) find(tp index.Platform, ver string) *version {
	switch ver {
	case "latest":
		return e.latest(tp, false)
	case "pre-release":
		return e.latest(tp, true)
	}
	for _, v := range e.filter(tp) {
		if v.Version == ver {
			return v
		}
	}
	return nil
}

// versionStrings lists the distinct version strings for tp in upstream's
// order, at most limit of them (limit < 0: all).
func (e *extension) versionStrings(tp index.Platform, limit int) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range e.filter(tp) {
		if limit >= 0 && len(out) == limit {
			break
		}
		if !seen[v.Version] {
			seen[v.Version] = true
			out = append(out, v.Version)
		}
	}
	return out
}

// stats returns the version whose per-extension values the server shows:
// the extension's latest.
func (e *extension) stats() *version { return e.latest("", false) }

// lastUpdated is the newest publish time of the extension.
func (e *extension) lastUpdated() time.Time {
	var t time.Time
	for _, v := range e.versions {
		if v.ts.After(t) {
			t = v.ts
		}
	}
	return t
}

// isVersionSegment reports whether s matches upstream's version path
// regex: strict SemVer or an alias.
func isVersionSegment(s string) bool {
	if s == "latest" || s == "pre-release" {
		return true
	}
	_, err := index.ParseVersion(s)
	return err == nil
}

// isPlatformSegment reports whether s is one of the target platforms
// (a closed set, so it cannot be confused with a version).
func isPlatformSegment(s string) bool { return index.Platform(s).Valid() }
