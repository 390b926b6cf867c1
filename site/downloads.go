package site

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/artifact"
)

// Downloads is how the pages offer the packages (the vsix files).
type Downloads string

// The download modes.
const (
	// DownloadsCopy copies every package into dl/ of the site, verified
	// while copied: the site carries its packages (a stick with only the
	// site on it). The default of Options.
	DownloadsCopy Downloads = "copy"
	// DownloadsLink copies nothing: the download links point at the
	// packages stored in the registry (Options.RegistryDir), by a
	// relative URL from the page, each package verified against the
	// catalog before it is linked. The site then works where the
	// registry sits beside it at the same relative path.
	DownloadsLink Downloads = "link"
	// DownloadsNone offers no package: the pages say the packages are
	// in the registry and show the airvsx install command only.
	DownloadsNone Downloads = "none"
)

// ParseDownloads parses a --downloads value: copy, link or none.
func ParseDownloads(s string) (Downloads, error) {
	switch d := Downloads(s); d {
	case DownloadsCopy, DownloadsLink, DownloadsNone:
		return d, nil
	}
	return "", fmt.Errorf("downloads %q: want copy, link or none", s)
}

// LinkPath returns the relative path from the site directory out (which
// need not exist yet) to the registry directory reg, slash-separated,
// when pages in out can link the registry's packages: both on one file
// system (a stick moved to another machine keeps them together) and the
// registry not inside out. Otherwise it returns an error that says why.
func LinkPath(out, reg string) (string, error) {
	ro, err := realPath(out)
	if err != nil {
		return "", err
	}
	rr, err := realPath(reg)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(ro, rr)
	if err != nil {
		return "", fmt.Errorf("no relative path from the site %s to the registry %s: %w", out, reg, err)
	}
	if rel == "." || filepath.IsLocal(rel) {
		return "", fmt.Errorf("the registry %s is inside the site %s", reg, out)
	}
	same, err := sameFileSystem(existing(ro), rr)
	if err != nil {
		return "", err
	}
	if !same {
		return "", fmt.Errorf("the site %s and the registry %s are on different file systems", out, reg)
	}
	return filepath.ToSlash(rel), nil
}

// realPath is path made absolute, the symbolic links of its longest
// existing part resolved.
func realPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rest := ""
	for p := abs; ; {
		r, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(r, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// existing is the longest existing ancestor of path (path itself when
// it exists).
func existing(path string) string {
	for {
		if _, err := os.Stat(path); err == nil {
			return path
		}
		parent := filepath.Dir(path)
		if parent == path {
			return path
		}
		path = parent
	}
}

// escapePath percent-escapes each segment of a slash path for a URL.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// downloadHref is where pages link e's package, relative to the site
// root: dl/<file> when copied, the stored blob when linked, "" for none.
func downloadHref(mode Downloads, linkBase string, e *index.Entry) string {
	switch mode {
	case DownloadsLink:
		return escapePath(linkBase + "/" + artifact.BlobName(artifact.Repo(e.ID), index.SHA256Digest(e.VsixSHA256)))
	case DownloadsNone:
		return ""
	}
	return "dl/" + vsixFileName(e)
}
