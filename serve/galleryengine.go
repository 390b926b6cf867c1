package serve

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/serve/gallery"
)

// maxGalleryQuery bounds an extensionquery body: the query engine's own
// bound (gallery.MaxQueryBytes), so that its error, which says what to
// change, is the one a client sees.
const maxGalleryQuery = gallery.MaxQueryBytes + 1

// NewGallery is Options.Gallery with serve/gallery's query engine: its
// index is built once per verified catalog.
func NewGallery(cat *index.Catalog) Gallery { return galleryEngine{gallery.New(cat)} }

// galleryEngine adapts a gallery.Index to Gallery.
type galleryEngine struct{ ix *gallery.Index }

// Query parses the body within the engine's bounds and answers it. A body
// over the bound is a *http.MaxBytesError (413); every other mistake of
// the client's wraps ErrBadQuery (400).
func (g galleryEngine) Query(body io.Reader, base string) ([]byte, error) {
	q, err := gallery.ParseQuery(body)
	switch {
	case errors.Is(err, gallery.ErrTooLarge):
		return nil, &http.MaxBytesError{Limit: gallery.MaxQueryBytes}
	case err != nil:
		return nil, badQuery(err)
	}
	b, err := g.ix.Query(q, base)
	if err != nil {
		return nil, badQuery(err)
	}
	return b, nil
}

// Latest answers the latest version of ns.name for platform.
func (g galleryEngine) Latest(ns, name string, p index.Platform, base string) ([]byte, bool) {
	return g.ix.Latest(ns, name, p, base)
}

// badQuery wraps an error of the engine about the query in ErrBadQuery.
func badQuery(err error) error {
	if errors.Is(err, gallery.ErrBadQuery) {
		return fmt.Errorf("%w: %w", ErrBadQuery, err)
	}
	return err
}
