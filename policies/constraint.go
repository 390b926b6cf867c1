package policies

import (
	"fmt"

	"github.com/Masterminds/semver/v3"
)

// Constraint is a SemVer range in the syntax of
// github.com/Masterminds/semver/v3 (">=1.30.0", "^1.2", "1.2.x",
// ">=1.0 <2.0 || 3.x", "*"). The zero Constraint, like "*", allows every
// version.
type Constraint struct {
	raw string
	c   *semver.Constraints
}

// ParseConstraint parses a version range. The empty string and "*" allow
// every version.
func ParseConstraint(s string) (Constraint, error) {
	if s == "" || s == "*" {
		return Constraint{raw: s}, nil
	}
	c, err := semver.NewConstraint(s)
	if err != nil {
		return Constraint{}, fmt.Errorf("version constraint %q: %w", s, err)
	}
	return Constraint{raw: s, c: c}, nil
}

// String returns the constraint as written; "*" for the zero Constraint.
func (c Constraint) String() string {
	if c.raw == "" {
		return "*"
	}
	return c.raw
}

// IsAny reports whether c allows every version.
func (c Constraint) IsAny() bool { return c.c == nil }

// Check reports whether v satisfies c. A version with a SemVer pre-release
// part (1.2.0-beta.1) satisfies c only when includePre is set, and then is
// compared by its full precedence. A nil v satisfies only a Constraint that
// allows every version.
func (c Constraint) Check(v *semver.Version, includePre bool) bool {
	if c.c == nil {
		return true
	}
	if v == nil {
		return false
	}
	cs := *c.c
	cs.IncludePrerelease = includePre
	return cs.Check(v)
}
