package mirror

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/internal/tempdir"
)

// DryRunPlace is the registry a dry run of a sync into place plans
// against: place itself when it exists (or is an OCI registry,
// docker://HOST/PREFIX, which is only read), else an empty directory
// registry made in a new temporary directory, so that a dry run for a
// registry not made yet writes nothing at place. remove removes that
// temporary directory (for place itself it does nothing); call it once
// the registry is closed.
func DryRunPlace(place string) (dryPlace string, remove func(), err error) {
	statPath := place
	p, perr := store.ParsePlace(place)
	if perr == nil && p.Kind == store.PlaceGit {
		statPath = p.Path
	}
	if _, err := os.Stat(statPath); (perr == nil && p.Kind == store.PlaceDocker) || !errors.Is(err, os.ErrNotExist) {
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
