package place

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/internal/tempdir"
)

// DryRun is the registry a dry run of a sync into place plans against:
// place itself when it exists (or is not a local place: an OCI registry,
// docker://HOST/PREFIX, which is only read), else an empty directory
// registry made in a new temporary directory, so that a dry run for a
// registry not made yet writes nothing at place. remove removes that
// temporary directory (for place itself it does nothing); call it once
// the registry is closed. A place that does not parse is returned as it
// is, for opening it to say why.
func DryRun(place string) (dryPlace string, remove func(), err error) {
	p, k, err := Parse(place)
	if err != nil {
		return place, func() {}, nil // opening it says what is wrong
	}
	if _, err := os.Stat(p.Path); !k.Local || !errors.Is(err, os.ErrNotExist) {
		return place, func() {}, nil
	}
	tmp, err := tempdir.New("", "airvsx-dry-run-", nil)
	if err != nil {
		return "", nil, err
	}
	dryPlace = filepath.Join(tmp.Path, "registry")
	st, err := dirstore.Open(dryPlace, dirstore.Options{Create: true})
	if err == nil {
		err = st.Close()
	}
	if err != nil {
		tmp.Remove()
		return "", nil, err
	}
	return dryPlace, func() { tmp.Remove() }, nil
}
