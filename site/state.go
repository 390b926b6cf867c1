package site

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"

	"github.com/airvsx/airvsx/index"
)

// StateFile is the file in a site that records what each page was
// rendered from, so that the next Render rewrites only the pages whose
// inputs changed.
const StateFile = ".airvsx-site-state.json"

// codeVersion changes whenever the renderer's code changes what a page
// holds for the same inputs; with the embedded templates and assets it
// makes rendererVersion.
const codeVersion = "site/2"

// rendererVersion identifies the renderer: a site recorded by another one
// is rendered again in full. It hashes codeVersion, the templates and
// assets, and the versions of the modules that render documents.
var rendererVersion = sync.OnceValue(func() string {
	h := sha256.New()
	h.Write([]byte(codeVersion + "\n"))
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if strings.HasPrefix(m.Path, "github.com/yuin/goldmark") || strings.HasPrefix(m.Path, "github.com/microcosm-cc/bluemonday") {
				fmt.Fprintf(h, "%s %s\n", m.Path, m.Version)
			}
		}
	}
	for _, d := range []struct {
		fsys fs.FS
		dir  string
	}{{templateFS, "templates"}, {assetFS, "assets"}} {
		ents, _ := fs.ReadDir(d.fsys, d.dir) // embedded: cannot fail
		for _, e := range ents {
			b, _ := fs.ReadFile(d.fsys, d.dir+"/"+e.Name())
			fmt.Fprintf(h, "%s/%s %d\n", d.dir, e.Name(), len(b))
			h.Write(b)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
})

// siteState is StateFile's content.
type siteState struct {
	Renderer  string               `json:"renderer"`
	Downloads Downloads            `json:"downloads"`
	LinkBase  string               `json:"link_base,omitempty"`
	Pages     map[string]pageState `json:"pages"` // by page name: ext/, category/ and publisher/ pages

	present map[string]bool // the files in the site when it was loaded
}

// pageState is what a page was rendered from and what it brought along.
type pageState struct {
	Inputs string   `json:"inputs"`          // sha256 of the page's inputs
	Icon   string   `json:"icon,omitempty"`  // an extension page's icon in img/
	Files  []string `json:"files,omitempty"` // the files it wrote besides itself (img/, dl/)
}

func newState(mode Downloads, linkBase string) *siteState {
	return &siteState{Renderer: rendererVersion(), Downloads: mode, LinkBase: linkBase, Pages: make(map[string]pageState)}
}

// loadState reads the state of the site in out when it can be built on:
// written by this renderer, for the same downloads; nil otherwise (no
// site, no state, a damaged one), which means a full render.
func loadState(out string, mode Downloads, linkBase string) *siteState {
	if _, err := os.Lstat(filepath.Join(out, SiteMarker)); err != nil {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(out, StateFile))
	if err != nil {
		return nil
	}
	var st siteState
	if err := json.Unmarshal(b, &st); err != nil || st.Pages == nil {
		return nil
	}
	if st.Renderer != rendererVersion() || st.Downloads != mode || st.LinkBase != linkBase {
		return nil
	}
	if st.present = onlyKnownFiles(out, &st); st.present == nil {
		return nil
	}
	return &st
}

// fixedFiles are the files of every site besides those its state names.
var fixedFiles = map[string]bool{
	"index.html": true, PublishersPage: true, SiteMarker: true, StateFile: true,
	"assets/site.css": true, "assets/site.js": true, "assets/favicon.png": true, "assets/search-index.js": true,
}

// onlyKnownFiles returns the files of the site in out when it holds
// every file its state names and no other (besides those every site has)
// in its own directories; nil otherwise: a file put there by someone
// else, or one removed, means a full render, which replaces the site
// whole.
func onlyKnownFiles(out string, st *siteState) map[string]bool {
	known := st.files()
	present := make(map[string]bool, len(known))
	dirs := map[string]bool{}
	for _, d := range siteDirs {
		dirs[d] = true
	}
	err := filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(out, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
			return nil
		case d.IsDir() && dirs[rel]:
			return nil
		case d.Type().IsRegular() && (fixedFiles[rel] || known[rel]):
			present[rel] = true
			return nil
		}
		return errUnknownFile
	})
	if err != nil {
		return nil
	}
	for name := range known {
		if !present[name] {
			return nil // a file gone
		}
	}
	return present
}

var errUnknownFile = errors.New("a file the site's state does not name")

// encode is the state as written: JSON, pages in name order.
func (s *siteState) encode() []byte {
	b, _ := json.Marshal(s) // maps marshal in key order
	return append(b, '\n')
}

// files is every file the state's pages name, the pages themselves
// included.
func (s *siteState) files() map[string]bool {
	m := make(map[string]bool, 2*len(s.Pages))
	for name, p := range s.Pages {
		m[name] = true
		for _, f := range p.Files {
			m[f] = true
		}
	}
	return m
}

// stale lists the files prev names that next does not, sorted: the pages
// of extensions, categories and publishers gone, and the images and
// copies no page uses any more.
func stale(prev, next *siteState) []string {
	keep := next.files()
	var out []string
	for f := range prev.files() {
		if !keep[f] {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

// inputs hashes what a page is made from, as JSON.
func inputs(parts ...any) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, p := range parts {
		if err := enc.Encode(p); err != nil {
			// Every part is plain data; a failure is a bug.
			panic(fmt.Sprintf("site: hash page inputs: %v", err))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// siteInputs is what every page shows of the site (the catalog's serial,
// digest, dates and totals are on the home page only, which is always
// written).
func siteInputs(s *siteData, linkBase string) string {
	return inputs(struct {
		Title, Reason, BaseURL, Registry, InstallTrust, ExtensionsDir, InstallPolicy, LinkBase string
		Verified                                                                               bool
		Downloads                                                                              Downloads
	}{s.Title, s.Reason, s.BaseURL, s.Registry, s.InstallTrust, s.ExtensionsDir, s.InstallPolicy, linkBase, s.Verified, s.Downloads})
}

// extInputs is what x's page and card are made from: its entries, and of
// the rest of the site only the pages it links.
func extInputs(site string, x *extView) string {
	entries := make([]*index.Entry, len(x.Entries))
	for i, e := range x.Entries {
		entries[i] = e.Entry
	}
	cats := make([]string, 0, 2*len(x.Categories))
	for _, c := range x.Categories {
		cats = append(cats, c.Name, c.Page)
	}
	return inputs(site, entries, x.Deps, x.Pack, cats, x.Publisher.Page, x.ControlNote)
}

// listInputs is what a category or publisher page is made from: its
// extensions' inputs, in order.
func listInputs(site, kind string, l *listView) string {
	xs := make([]string, len(l.Exts))
	for i, x := range l.Exts {
		xs[i] = x.inputs
	}
	return inputs(site, kind, l.Name, l.Page, xs)
}
