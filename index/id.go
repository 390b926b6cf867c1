package index

import (
	"fmt"
	"regexp"
	"strings"
)

// MaxNameLen is the longest namespace or extension name accepted.
const MaxNameLen = 255

// namePattern is the set of characters Open VSX allows in a namespace or an
// extension name (its ExtensionValidator: [\w\-\+\$~]+).
var namePattern = regexp.MustCompile(`^[A-Za-z0-9_\-+$~]+$`)

// ID identifies an extension: "namespace.name" (in VS Code terms
// "publisher.name"). Identity is case-insensitive; the display case is
// kept. The zero ID is invalid.
type ID struct {
	Namespace string
	Name      string
}

// ParseID parses "namespace.name". The namespace is everything before the
// first dot; the name may not contain a dot either.
func ParseID(s string) (ID, error) {
	ns, name, ok := strings.Cut(s, ".")
	if !ok {
		return ID{}, fmt.Errorf("extension ID %q: want namespace.name", s)
	}
	id := ID{Namespace: ns, Name: name}
	if err := id.Validate(); err != nil {
		return ID{}, err
	}
	return id, nil
}

// ValidIDs parses each of list with ParseID and returns the valid IDs, in
// order; the others are left out (a manifest's problem, reported as such
// where it is parsed).
func ValidIDs(list []string) []ID {
	var ids []ID
	for _, s := range list {
		if id, err := ParseID(s); err == nil {
			ids = append(ids, id)
		}
	}
	return ids
}

// MustParseID is ParseID for constants in tests and examples; it panics on
// an invalid ID.
func MustParseID(s string) ID {
	id, err := ParseID(s)
	if err != nil {
		panic(err)
	}
	return id
}

// ValidName reports whether s is a valid namespace or extension name.
func ValidName(s string) bool {
	return len(s) > 0 && len(s) <= MaxNameLen && namePattern.MatchString(s)
}

// Validate checks both parts against the characters Open VSX allows.
func (id ID) Validate() error {
	if !ValidName(id.Namespace) {
		return fmt.Errorf("extension ID %q: invalid namespace %q (want 1-%d of A-Z a-z 0-9 _ - + $ ~)", id.String(), id.Namespace, MaxNameLen)
	}
	if !ValidName(id.Name) {
		return fmt.Errorf("extension ID %q: invalid name %q (want 1-%d of A-Z a-z 0-9 _ - + $ ~)", id.String(), id.Name, MaxNameLen)
	}
	return nil
}

// String returns "namespace.name" in display case.
func (id ID) String() string { return id.Namespace + "." + id.Name }

// Key returns the identity key: the lower-cased "namespace.name". Two IDs
// name the same extension exactly when their keys are equal.
func (id ID) Key() string { return strings.ToLower(id.String()) }

// Equal reports whether id and other name the same extension, ignoring case.
func (id ID) Equal(other ID) bool { return id.Key() == other.Key() }

// IsZero reports whether id is the zero ID.
func (id ID) IsZero() bool { return id.Namespace == "" && id.Name == "" }

// Compare orders IDs by key, then by display spelling, so sorting is total
// and stable.
func (id ID) Compare(other ID) int {
	if c := strings.Compare(id.Key(), other.Key()); c != 0 {
		return c
	}
	return strings.Compare(id.String(), other.String())
}

// MarshalText encodes the ID as "namespace.name".
func (id ID) MarshalText() ([]byte, error) {
	if err := id.Validate(); err != nil {
		return nil, err
	}
	return []byte(id.String()), nil
}

// UnmarshalText parses "namespace.name".
func (id *ID) UnmarshalText(b []byte) error {
	v, err := ParseID(string(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}
