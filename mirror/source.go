package mirror

// Where an item's files come from: the storage directory the upstream's
// redirect of its package names (Open VSX's CDN), so that the API host is
// asked once per package.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"

	"github.com/airvsx/airvsx/mirror/openvsx"
)

// sources are the URLs an item's files are fetched from. sha256Alt and
// signatureAlt, when set, are the API URLs tried when the storage
// answers 404 for its file.
type sources struct {
	download, sha256, signature string
	sha256Alt, signatureAlt     string
}

// sources asks the upstream where the item's package lives, with one
// request to its API host (Locate: a HEAD of the download URL whose
// redirect is read, not followed), and fetches the package, its .sha256
// and its signature from there: Open VSX redirects every file of a
// version to one storage directory,
// {storage}/{ns}/{name}[/{platform}]/{version}/, under its stored name,
// the last segment of its API URL. Nothing more is asked of the API host
// for the item (its signing key aside, fetched once per key).
//
// Where the upstream serves its files itself (no redirect, or no HEAD),
// or the redirect does not name such a directory (another file name, a
// signed URL with a query), the .sha256 and the signature are fetched
// from their API URLs, which the upstream may redirect in turn.
func (f *fetcher) sources(ctx context.Context, it *Item) (sources, error) {
	m := it.Meta
	api := sources{download: m.Files["download"], sha256: m.Files["sha256"], signature: m.Files["signature"]}
	var loc string
	err := f.request(ctx, "location of "+it.String(), func() (err error) {
		loc, err = f.client.Locate(ctx, api.download)
		return err
	})
	if err != nil {
		return sources{}, fmt.Errorf("locate %s: %w", it, err)
	}
	if loc == "" {
		// The upstream serves the files itself: its API URLs.
		return api, nil
	}
	src := sources{download: loc}
	src.sha256, src.sha256Alt = neighbour(loc, api.download, api.sha256)
	src.signature, src.signatureAlt = neighbour(loc, api.download, api.signature)
	return src, nil
}

// neighbour returns the storage URL of the file whose API URL is apiFile,
// beside loc (where apiDownload redirects), with apiFile as the one to
// try should the storage not have it; or apiFile alone when loc does not
// name a storage directory of apiDownload's version. apiFile "" is "".
func neighbour(loc, apiDownload, apiFile string) (primary, alt string) {
	if apiFile == "" {
		return "", ""
	}
	l, err1 := url.Parse(loc)
	d, err2 := url.Parse(apiDownload)
	a, err3 := url.Parse(apiFile)
	if err1 != nil || err2 != nil || err3 != nil || l.RawQuery != "" || l.Fragment != "" ||
		path.Base(l.Path) != path.Base(d.Path) || path.Dir(a.Path) != path.Dir(d.Path) {
		return apiFile, ""
	}
	n := l.ResolveReference(&url.URL{Path: "./" + path.Base(a.Path)})
	return n.String(), apiFile
}

// fetchSmall fetches a small file from u, or from alt (when set) if u
// answers 404.
func (f *fetcher) fetchSmall(ctx context.Context, u, alt string, maxBytes int64) ([]byte, error) {
	b, err := f.client.Fetch(ctx, u, maxBytes)
	if alt != "" && errors.Is(err, openvsx.ErrNotFound) {
		f.log.Debug("storage lacks a file; asking the API", "url", u, "api", alt)
		return f.client.Fetch(ctx, alt, maxBytes)
	}
	return b, err
}
