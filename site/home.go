package site

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"strings"
	"sync"
)

// FirstPage is how many cards the home page holds: the first ones in
// name order. The script loads the rest from the search index on demand
// (search, "Show more"), so the home page's size and first paint do not
// grow with the registry.
const FirstPage = 60

// cards are the cards of one extension, rendered at first use (by the
// home page or a list page) and then reused.
type cards struct {
	home, list         sync.Once
	homeHTML, listHTML template.HTML
	homeErr, listErr   error
}

// card renders the card of x for pages at the root (list false) or one
// directory down (list true), once.
func (r *renderer) card(x *extView, list bool) (template.HTML, error) {
	c := &x.cards
	render := func(root string) (template.HTML, error) {
		var buf bytes.Buffer
		if err := templates().ExecuteTemplate(&buf, "card", cardData{&pageData{Site: r.m.site, Root: root}, x}); err != nil {
			return "", fmt.Errorf("render the card of %s: %w", x.ID, err)
		}
		return template.HTML(buf.String()), nil
	}
	if list {
		c.list.Do(func() { c.listHTML, c.listErr = render("../") })
		return c.listHTML, c.listErr
	}
	c.home.Do(func() { c.homeHTML, c.homeErr = render("") })
	return c.homeHTML, c.homeErr
}

// cardList is the cards of exts, one after the other.
func (r *renderer) cardList(exts []*extView, list bool) (template.HTML, error) {
	var b strings.Builder
	for _, x := range exts {
		h, err := r.card(x, list)
		if err != nil {
			return "", err
		}
		b.WriteString(string(h))
	}
	return template.HTML(b.String()), nil
}

// writeAssets writes the style sheet, the script, the icon and the
// search index, each only when it changed.
func (r *renderer) writeAssets() error {
	for _, name := range []string{"assets/site.css", "assets/site.js", "assets/favicon.png"} {
		b, err := assetFS.ReadFile(name)
		if err != nil {
			return err
		}
		if _, err := r.out.writeIfChanged(name, b); err != nil {
			return err
		}
	}
	_, err := r.out.writeIfChanged("assets/search-index.js", searchIndex(r.m))
	return err
}

// searchIndex is a script that sets window.AIRVSX_INDEX: "verified", the
// category pages by name ("cats"), and one row per extension in name
// order ("entries"): [id, display name, publisher, description, tags,
// categories, platforms, capability values, published (Unix seconds),
// latest version, icon ("" for none), pre-release (0 or 1), upstream
// signatures ("all", "some", "none"), who added the latest version by
// hand and when ("" when mirrored)]. The script builds the cards past
// the home page's first page from it. encoding/json escapes <, > and &
// and the line separators, so the JSON is safe inside a script.
func searchIndex(m *model) []byte {
	rows := make([][]any, len(m.exts))
	for i, x := range m.exts {
		cats := make([]string, len(x.Categories))
		for j, c := range x.Categories {
			cats[j] = c.Name
		}
		pre := 0
		if x.Latest.PreRelease {
			pre = 1
		}
		rows[i] = []any{x.ID, x.DisplayName, x.Namespace, x.Description, nonNil(x.Latest.Tags), nonNil(cats),
			nonNil(x.Platforms), nonNil(x.CapValues), x.Latest.Published.Unix(), x.Latest.Version, x.Icon, pre, x.Signed, x.LocalNote, x.Control, x.ControlNote}
	}
	catPages := make(map[string]string, len(m.categories))
	for _, c := range m.categories {
		catPages[c.Name] = c.Page
	}
	b, _ := json.Marshal(map[string]any{"v": 2, "verified": m.site.Verified, "cats": catPages, "entries": rows})
	var buf bytes.Buffer
	buf.WriteString("\"use strict\";\n// The search index of the airvsx site (generated).\nwindow.AIRVSX_INDEX = ")
	buf.Write(b)
	buf.WriteString(";\n")
	return buf.Bytes()
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// renderLists writes the home page, the publishers page and the
// category and publisher pages whose inputs changed, workers at a time.
func (r *renderer) renderLists(ctx context.Context, workers int) error {
	m := r.m
	pages := []func() error{func() error {
		first := m.exts[:min(len(m.exts), FirstPage)]
		cards, err := r.cardList(first, false)
		if err != nil {
			return err
		}
		home := &pageData{Title: m.site.Title, Home: &homeData{
			Cards: cards, Shown: len(first), Categories: m.categories, Publishers: len(m.publishers), Platforms: m.platforms, Caps: m.caps,
		}}
		return r.pageIfChanged("index.html", "home.html", home)
	}, func() error {
		return r.pageIfChanged(PublishersPage, "publishers.html", &pageData{Title: "Publishers", Publishers: m.publishers})
	}}
	list := func(kind string, l *listView) func() error {
		return func() error {
			in := listInputs(r.siteIn, kind, l)
			if ps, ok := r.unchanged(l.Page, in); ok {
				r.keep(l.Page, ps)
				return nil
			}
			cards, err := r.cardList(l.Exts, true)
			if err != nil {
				return err
			}
			if err := r.page(l.Page, "list.html", &pageData{Root: "../", Title: kind + " " + l.Name, List: &listPage{Kind: kind, L: l, Cards: cards}}); err != nil {
				return err
			}
			r.keep(l.Page, pageState{Inputs: in})
			return nil
		}
	}
	for _, c := range m.categories {
		pages = append(pages, list("Category", c))
	}
	for _, p := range m.publishers {
		pages = append(pages, list("Publisher", p))
	}
	return parallel(ctx, workers, len(pages), func(_ context.Context, i int) error { return pages[i]() })
}

// PublishersPage is the page that lists every publisher (the home page
// lists the categories, and links this page).
const PublishersPage = "publishers.html"

// unchanged returns the state of page from the previous render when its
// inputs are the same and its file was there when the render began: the
// page is kept as it is. It counts the page as done.
func (r *renderer) unchanged(page, in string) (pageState, bool) {
	if r.prev == nil {
		return pageState{}, false
	}
	ps, ok := r.prev.Pages[page]
	if !ok || ps.Inputs != in || !r.prev.present[page] {
		return pageState{}, false
	}
	r.progress.pageDone()
	return ps, true
}

// keep records page in the state the render leaves.
func (r *renderer) keep(page string, ps pageState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next.Pages[page] = ps
}
