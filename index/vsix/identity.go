package vsix

import (
	"fmt"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
)

// IdentityError says a package is not the extension, version and platform
// it was taken for (by sync, from what upstream listed; by verify and
// install, from the signed catalog entry).
type IdentityError struct {
	Got  string // what the package says: ns.name@version[@platform]
	Want string // what it was taken for
}

func (e *IdentityError) Error() string {
	return fmt.Sprintf("the package is %s, not %s", e.Got, e.Want)
}

// CheckIdentity reports whether the package is id at version (exactly, as
// package.json spells it) for platform; IDs compare as Open VSX compares
// them, ignoring case. The error is an *IdentityError.
func (p *Package) CheckIdentity(id index.ID, version string, platform index.Platform) error {
	got := "?"
	if p.Version != nil {
		got = p.Version.Original()
	}
	if p.ID.Equal(id) && p.Version != nil && got == version && p.Platform == platform {
		return nil
	}
	return &IdentityError{Got: index.EntryName(p.ID, got, p.Platform), Want: index.EntryName(id, version, platform)}
}

// RuleUnstorable: the package's ID or version cannot name an entry in a
// registry (store.CheckEntryName: a Windows device name such as "con", a
// tag longer than 128 characters). sync refuses such a package with the
// same check, so inspect and sync never disagree about it.
const RuleUnstorable Rule = "unstorable-name"

// checkStorable records RuleUnstorable when p's identity cannot be stored.
func checkStorable(p *Package, r *Report) {
	if p.ID.IsZero() || p.Version == nil || !p.Platform.Valid() {
		return // already reported as a manifest problem
	}
	if err := artifact.CheckEntryName(p.ID, p.Version.Original(), p.Platform); err != nil {
		field := "version"
		if store.CheckRepo(artifact.Repo(p.ID)) != nil {
			field = "publisher/name"
		}
		r.Errorf(PackageJSONPath, field, RuleUnstorable, "cannot be stored in a registry: %v", err)
	}
}
