package serve

import (
	"net/url"
	"strings"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/artifact"
)

// segments splits an escaped path (after its prefix) into its decoded
// segments; ok is false for an empty segment, an encoding that does not
// decode, or a decoded segment holding '/', '\\', NUL or a control
// character (an encoded separator is a name, never a separator).
func segments(escaped string) ([]string, bool) {
	escaped = strings.TrimSuffix(escaped, "/")
	if escaped == "" {
		return nil, true
	}
	parts := strings.Split(escaped, "/")
	for i, p := range parts {
		s, err := url.PathUnescape(p)
		if err != nil || !cleanSegment(s) {
			return nil, false
		}
		parts[i] = s
	}
	return parts, true
}

// cleanSegment reports whether s is a segment a route may use: not
// empty, not a dot segment, no separator or control character.
func cleanSegment(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > 256 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c == '/' || c == '\\' {
			return false
		}
	}
	return true
}

// validID reports whether ns and name can name an extension.
func validID(ns, name string) bool { return index.ValidName(ns) && index.ValidName(name) }

// pick returns the entry of es (one extension's, newest first) for
// version ("" or "latest": the newest stable, else the newest;
// "pre-release": the newest pre-release) and platform ("" for any,
// universal preferred), or nil.
func pick(es []index.Entry, version string, platform index.Platform) *index.Entry {
	match := func(e *index.Entry) bool { return platform == "" || e.Platform == platform }
	want := version
	switch version {
	case "", "latest", "pre-release":
		want = ""
		for i := range es {
			if e := &es[i]; match(e) && e.PreRelease == (version == "pre-release") {
				want = e.Version
				break
			}
		}
		if want == "" && version != "pre-release" {
			for i := range es {
				if e := &es[i]; match(e) {
					want = e.Version
					break
				}
			}
		}
		if want == "" {
			return nil
		}
	}
	var best *index.Entry
	for i := range es {
		e := &es[i]
		if !match(e) || e.Version != want {
			continue
		}
		if best == nil || e.Platform == index.Universal {
			best = e
		}
	}
	return best
}

// vsixName is the file name Open VSX gives e's package:
// ns.name-version[@platform].vsix.
func vsixName(e *index.Entry) string {
	s := e.ID.String() + "-" + e.Version
	if e.Platform != index.Universal && e.Platform != "" {
		s += "@" + string(e.Platform)
	}
	return s + ".vsix"
}

// fileRole maps a file name of an Open VSX file URL to the layer of m it
// names: the package, its package.json, its signature, or a layer by its
// title (README, CHANGELOG, LICENSE, the icon).
func fileRole(m *artifact.Manifest, e *index.Entry, name string) (artifact.Layer, bool) {
	switch {
	case name == vsixName(e):
		return m.Layer(artifact.RoleVsix)
	case name == "package.json":
		return m.Layer(artifact.RoleManifest)
	case name == strings.TrimSuffix(vsixName(e), ".vsix")+".sigzip":
		return m.Layer(artifact.RoleUpstreamSignature)
	}
	for _, r := range []artifact.Role{artifact.RoleReadme, artifact.RoleChangelog, artifact.RoleLicense, artifact.RoleIcon} {
		if l, ok := m.Layer(r); ok && l.Title == name {
			return l, true
		}
	}
	return artifact.Layer{}, false
}
