package index

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/Masterminds/semver/v3"
)

// enginePattern is VS Code's own grammar for engines.vscode
// (src/vs/platform/extensions/common/extensionValidator.ts): an optional
// "^" or ">=", three parts each a number or "x", and an optional
// pre-release suffix such as "-insider" or a date, which only narrows
// insider builds and is ignored here.
var enginePattern = regexp.MustCompile(`^(\^|>=)?(\d+|x)\.(\d+|x)\.(\d+|x)(-.*)?$`)

// EngineRange is an engines.vscode value: the editor API versions an
// extension accepts. It follows VS Code's semantics, not npm's: "*" accepts
// every version; "^1.80.0" accepts 1.80.0 and later within major 1 (within
// minor 0.x for 0.x.y); ">=1.80.0" accepts 1.80.0 and later; "1.80.0" or
// "1.80.x" accept exactly that version or pattern.
type EngineRange struct {
	raw        string
	any        bool
	caret      bool
	minimum    bool
	parts      [3]uint64
	wild       [3]bool
	preRelease string
}

// ParseEngineRange parses an engines.vscode value.
func ParseEngineRange(s string) (EngineRange, error) {
	if s == "*" {
		return EngineRange{raw: s, any: true}, nil
	}
	m := enginePattern.FindStringSubmatch(s)
	if m == nil {
		return EngineRange{}, fmt.Errorf("engines.vscode %q: want *, ^X.Y.Z, >=X.Y.Z or X.Y.Z (parts may be x)", s)
	}
	r := EngineRange{raw: s, caret: m[1] == "^", minimum: m[1] == ">=", preRelease: m[5]}
	for i := range 3 {
		p := m[2+i]
		if p == "x" {
			r.wild[i] = true
			continue
		}
		n, err := strconv.ParseUint(p, 10, 32)
		if err != nil {
			return EngineRange{}, fmt.Errorf("engines.vscode %q: part %q: %w", s, p, err)
		}
		r.parts[i] = n
	}
	return r, nil
}

// String returns the range as written.
func (r EngineRange) String() string { return r.raw }

// IsZero reports whether r was never parsed.
func (r EngineRange) IsZero() bool { return r.raw == "" }

// Allows reports whether an editor of version v accepts the extension.
// Pre-release and build parts of v are ignored, as VS Code ignores them for
// this check.
func (r EngineRange) Allows(v *semver.Version) bool {
	if r.any {
		return true
	}
	if r.raw == "" || v == nil {
		return false
	}
	have := [3]uint64{v.Major(), v.Minor(), v.Patch()}
	base := r.parts // a wildcard compares as 0 for minimums
	switch {
	case r.minimum:
		return compare3(have, base) >= 0
	case r.caret:
		// VS Code: ^0.y.z pins major and minor; ^x.y.z (x > 0) pins major.
		if !r.wild[0] && have[0] != base[0] {
			return false
		}
		if base[0] == 0 && !r.wild[1] && have[1] != base[1] {
			return false
		}
		return compare3(have, base) >= 0
	default:
		for i := range 3 {
			if !r.wild[i] && have[i] != base[i] {
				return false
			}
		}
		return true
	}
}

func compare3(a, b [3]uint64) int {
	for i := range 3 {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// MarshalText returns the range as written.
func (r EngineRange) MarshalText() ([]byte, error) { return []byte(r.raw), nil }

// UnmarshalText parses an engines.vscode value.
func (r *EngineRange) UnmarshalText(b []byte) error {
	v, err := ParseEngineRange(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}
