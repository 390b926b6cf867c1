package serve

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/airvsx/airvsx/site"
)

// startSite renders the static catalog of sn into a directory of its own
// under Options.SiteDir, removed when sn is closed; with wait it renders
// before returning (a reload: the site swaps with its catalog), else in
// the background (at start: the APIs are served at once).
func (s *Server) startSite(ctx context.Context, sn *snapshot, wait bool) {
	if s.opts.SiteDir == "" {
		return
	}
	dir := filepath.Join(s.opts.SiteDir, fmt.Sprintf("site-%d-%s", sn.cat.Serial, strings.TrimPrefix(sn.digest, "sha256:")[:12]))
	sn.onClose = func() { os.RemoveAll(dir) }
	sn.refs.Add(1) // the render's reference
	render := func() {
		defer sn.release()
		defer s.renders.Done()
		os.RemoveAll(dir)
		st, done, err := s.use(ctx, sn)
		if err != nil {
			s.log.Error("open the registry to render the static catalog; the APIs are served without it", "err", err)
			return
		}
		defer done()
		res, err := site.Render(ctx, st, site.Options{Out: dir, BaseURL: s.opts.BaseURL, Anchor: s.opts.Anchor, State: s.opts.State,
			Now: s.opts.Now, Downloads: site.DownloadsNone, Workers: 1})
		switch {
		case err != nil:
			s.log.Error("render the static catalog; the APIs are served without it", "serial", sn.cat.Serial, "err", err)
		case res.Catalog != sn.digest:
			s.log.Warn("the static catalog rendered another catalog than the one served; not shown", "serial", sn.cat.Serial, "rendered", res.Catalog)
		default:
			sn.site.Store(&dir)
			s.log.Info("static catalog rendered", "serial", sn.cat.Serial, "pages", res.Pages)
		}
	}
	s.renders.Add(1)
	if wait {
		render()
		return
	}
	go render()
}

// site answers everything else: the static catalog's files. Paths are
// opened inside the site's directory only (os.Root), never a dot file,
// never a listing: a directory is its index.html or nothing.
func (s *Server) site(w http.ResponseWriter, r *http.Request) {
	sn := s.acquire()
	defer sn.release()
	dir := sn.site.Load()
	if dir == nil {
		if r.URL.Path != "/" {
			httpError(w, http.StatusNotFound, "not found")
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprintf(w, "<!doctype html><title>airvsx</title><p>airvsx serves catalog serial %d: the Open VSX API at /api/ and the VS Code gallery at /vscode/gallery/.", sn.cat.Serial)
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	for _, el := range strings.Split(name, "/") {
		if strings.HasPrefix(el, ".") {
			httpError(w, http.StatusNotFound, "not found")
			return
		}
	}
	root, err := os.OpenRoot(*dir)
	if err != nil {
		httpError(w, http.StatusServiceUnavailable, "the static catalog is not available")
		return
	}
	defer root.Close()
	if name == "" {
		name = "."
	}
	f, err := root.Open(name)
	if err != nil {
		httpError(w, http.StatusNotFound, "not found")
		return
	}
	fi, err := f.Stat()
	if err == nil && fi.IsDir() {
		f.Close()
		f, err = root.Open(path.Join(name, "index.html"))
		if err == nil {
			fi, err = f.Stat()
		}
	}
	if err != nil || !fi.Mode().IsRegular() {
		if f != nil {
			f.Close()
		}
		code := http.StatusNotFound
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			code = http.StatusForbidden
		}
		httpError(w, code, "not found")
		return
	}
	defer f.Close()
	w.Header().Set("Cache-Control", "public, max-age=60")
	http.ServeContent(w, r, fi.Name(), fi.ModTime(), f)
}
