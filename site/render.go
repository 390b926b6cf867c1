package site

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"path"
	"strings"
	"sync"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/vsix"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets/site.css assets/site.js assets/favicon.png
var assetFS embed.FS

// templates are the parsed page templates, parsed at first use: not at
// package initialization, which every run of the binary pays for (the
// extension host's sandbox helper is this binary, started per host).
var templates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		"join":  strings.Join,
		"cards": func(d *pageData, exts []*extView) cardsData { return cardsData{d, exts} },
	}).ParseFS(templateFS, "templates/*.html"))
})

// cardsData is what the "cards" template gets.
type cardsData struct {
	P    *pageData
	Exts []*extView
}

// cardData is what the "card" template gets.
type cardData struct {
	P *pageData
	X *extView
}

type renderer struct {
	st       store.Store
	out      *outDir
	docs     *docRenderer
	m        *model
	log      *slog.Logger
	progress *pageProgress
}

func (r *renderer) page(name, tmpl string, data *pageData) error {
	data.Site = r.m.site
	var buf bytes.Buffer
	if err := templates().ExecuteTemplate(&buf, tmpl, data); err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	r.out.pages.Add(1)
	if err := r.out.write(name, buf.Bytes()); err != nil {
		return err
	}
	r.progress.pageDone()
	return nil
}

// pageProgress counts written pages for Options.Progress, one call at a
// time, from every render worker.
type pageProgress struct {
	mu    sync.Mutex
	f     func(done, total int) // nil: count nothing
	done  int
	total int
}

// newPageProgress reports 0 of total pages to f, unless f is nil.
func newPageProgress(f func(done, total int), total int) *pageProgress {
	p := &pageProgress{f: f, total: total}
	if f != nil {
		f(0, total)
	}
	return p
}

func (p *pageProgress) pageDone() {
	if p.f == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.f(p.done, p.total)
}

// writeAssets writes the style sheet, the script and the search index.
func (r *renderer) writeAssets() error {
	for _, name := range []string{"assets/site.css", "assets/site.js", "assets/favicon.png"} {
		b, err := assetFS.ReadFile(name)
		if err != nil {
			return err
		}
		if err := r.out.write(name, b); err != nil {
			return err
		}
	}
	return r.out.write("assets/search-index.js", searchIndex(r.m))
}

// searchIndex is a script that sets window.AIRVSX_INDEX: one row per home
// page card, in card order: [id, display name, publisher, description,
// tags, categories, platforms, capability values, published (Unix
// seconds), latest version]. encoding/json escapes <, > and & and the line
// separators, so the JSON is safe inside a script.
func searchIndex(m *model) []byte {
	rows := make([][]any, len(m.exts))
	for i, x := range m.exts {
		cats := make([]string, len(x.Categories))
		for j, c := range x.Categories {
			cats[j] = c.Name
		}
		rows[i] = []any{x.ID, x.DisplayName, x.Namespace, x.Description, nonNil(x.Latest.Tags), nonNil(cats),
			nonNil(x.Platforms), nonNil(x.CapValues), x.Latest.Published.Unix(), x.Latest.Version}
	}
	b, _ := json.Marshal(map[string]any{"v": 1, "entries": rows})
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

// renderLists writes the home page and the category and publisher pages,
// workers at a time.
func (r *renderer) renderLists(ctx context.Context, workers int) error {
	m := r.m
	pages := []func() error{func() error {
		home := &pageData{Title: m.site.Title, Home: &homeData{
			Exts: m.exts, Categories: m.categories, Publishers: m.publishers, Platforms: m.platforms, Caps: m.caps,
		}}
		return r.page("index.html", "home.html", home)
	}}
	for _, c := range m.categories {
		pages = append(pages, func() error {
			return r.page(c.Page, "list.html", &pageData{Root: "../", Title: "Category " + c.Name, List: &listPage{Kind: "Category", L: c}})
		})
	}
	for _, p := range m.publishers {
		pages = append(pages, func() error {
			return r.page(p.Page, "list.html", &pageData{Root: "../", Title: "Publisher " + p.Name, List: &listPage{Kind: "Publisher", L: p}})
		})
	}
	return parallel(ctx, workers, len(pages), func(_ context.Context, i int) error { return pages[i]() })
}

// renderExtension copies every vsix of x into dl/, the icon and README
// images into img/, and writes x's page.
func (r *renderer) renderExtension(ctx context.Context, x *extView) error {
	for _, e := range x.Entries {
		if err := r.copyVsix(ctx, e); err != nil {
			return err
		}
	}
	l := x.Latest
	man, err := artifact.EntryManifest(ctx, r.st, l)
	if err != nil {
		return err
	}
	p := &extPage{X: x}
	if ly, ok := man.Layer(artifact.RoleIcon); ok {
		if p.IconNote = r.oversize(x, "icon", ly); p.IconNote == "" {
			if x.Icon, err = r.copyImage(ctx, x, ly); err != nil {
				return fmt.Errorf("icon: %w", err)
			}
		}
	}
	images := &readmeImages{r: r, ctx: ctx, x: x}
	if p.Readme, p.ReadmeNote, err = r.document(ctx, x, man, artifact.RoleReadme, images.resolve); err != nil {
		return fmt.Errorf("readme: %w", err)
	}
	if images.arc != nil {
		images.arc.Close()
	}
	if images.err != nil {
		return fmt.Errorf("readme image: %w", images.err)
	}
	if p.Changelog, _, err = r.document(ctx, x, man, artifact.RoleChangelog, nil); err != nil {
		return fmt.Errorf("changelog: %w", err)
	}
	if ly, ok := man.Layer(artifact.RoleLicense); ok && r.oversize(x, "licence text", ly) != "" {
		p.LicenseNote = r.oversize(x, "licence text", ly)
	} else if ok {
		b, err := r.readLayer(ctx, x, ly)
		if err != nil {
			return fmt.Errorf("license: %w", err)
		}
		p.License = string(bytes.ToValidUTF8(b, []byte("\uFFFD")))
	}
	p.Repository, p.RepoText = outboundURL(l.Repository)
	p.Homepage, p.HomeText = outboundURL(l.Homepage)
	p.Install = installCommands(r.m.site, x)
	if x.CardHome, err = r.card("", x); err != nil {
		return err
	}
	if x.CardList, err = r.card("../", x); err != nil {
		return err
	}
	return r.page(x.Page, "ext.html", &pageData{Root: "../", Title: x.DisplayName, Ext: p})
}

// card renders the card of x once, for pages at root.
func (r *renderer) card(root string, x *extView) (template.HTML, error) {
	var buf bytes.Buffer
	if err := templates().ExecuteTemplate(&buf, "card", cardData{&pageData{Site: r.m.site, Root: root}, x}); err != nil {
		return "", fmt.Errorf("render the card of %s: %w", x.ID, err)
	}
	return template.HTML(buf.String()), nil
}

// copyVsix copies one vsix into dl/, verified while read.
func (r *renderer) copyVsix(ctx context.Context, e entryView) error {
	rc, err := r.st.OpenBlob(ctx, artifact.Repo(e.ID), index.SHA256Digest(e.VsixSHA256), e.VsixSize)
	if err != nil {
		return fmt.Errorf("vsix %s: %w", e.File, err)
	}
	defer rc.Close()
	if err := r.out.copyFrom(e.Href, rc); err != nil {
		return fmt.Errorf("vsix %s: %w", e.File, err)
	}
	return nil
}

// readBlob reads a whole blob of x's repository, verified, refusing more
// than max bytes.
func (r *renderer) readBlob(ctx context.Context, digest string, size, max int64, x *extView) ([]byte, error) {
	return store.ReadBlob(ctx, r.st, artifact.Repo(x.Latest.ID), digest, size, max)
}

func (r *renderer) readLayer(ctx context.Context, x *extView, ly artifact.Layer) ([]byte, error) {
	return r.readBlob(ctx, ly.Digest, ly.Size, MaxDocumentBytes, x)
}

// oversize returns the note that says the layer ly of x (what: "icon")
// is unavailable because it is larger than MaxDocumentBytes, logging it;
// "" when it is not. Such a layer is left out of the site, which renders
// on: it is a limit of the site, not a fault of the registry.
func (r *renderer) oversize(x *extView, what string, ly artifact.Layer) string {
	if ly.Size <= MaxDocumentBytes {
		return ""
	}
	r.log.Warn("layer larger than the site renders", "ext", x.ID, "layer", what, "size", ly.Size, "max", MaxDocumentBytes)
	return fmt.Sprintf("The %s is unavailable: it is %s, larger than the %s this site shows.", what, index.FormatBytes(ly.Size), index.FormatBytes(MaxDocumentBytes))
}

// document renders the README or CHANGELOG layer; a missing layer gives a
// note, one larger than MaxDocumentBytes a note naming its size.
func (r *renderer) document(ctx context.Context, x *extView, man *artifact.Manifest, role artifact.Role, img imageResolver) (template.HTML, string, error) {
	ly, ok := man.Layer(role)
	if !ok {
		return "", "This package has no " + string(role) + ".", nil
	}
	if ly.Size > MaxDocumentBytes {
		return "", fmt.Sprintf("The %s (%s) is larger than the %s this site renders.", role, index.FormatBytes(ly.Size), index.FormatBytes(MaxDocumentBytes)), nil
	}
	b, err := r.readLayer(ctx, x, ly)
	if err != nil {
		return "", "", err
	}
	h, err := r.docs.Render(b, string(role), img)
	return h, "", err
}

// copyImage copies an image blob into img/<sha256>.<ext> when its content
// is a PNG, JPEG, GIF or WebP; it returns the path relative to the site
// root, or "" for anything else.
func (r *renderer) copyImage(ctx context.Context, x *extView, ly artifact.Layer) (string, error) {
	b, err := r.readBlob(ctx, ly.Digest, ly.Size, MaxDocumentBytes, x)
	if err != nil {
		return "", err
	}
	return r.writeImage(b)
}

func (r *renderer) writeImage(b []byte) (string, error) {
	ext := imageExt(b)
	if ext == "" {
		return "", nil
	}
	name := "img/" + index.SHA256Hex(b) + ext
	if r.out.claim(name) {
		if err := r.out.write(name, b); err != nil {
			return "", err
		}
	}
	return name, nil
}

// imageExt names the image format of b by its content: the formats every
// browser shows and none runs script in (so no SVG).
func imageExt(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return ".png"
	case bytes.HasPrefix(b, []byte("\xff\xd8\xff")):
		return ".jpg"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return ".gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return ".webp"
	}
	return ""
}

// readmeImages resolves a README's relative images to files in the
// latest entry's vsix (its copy in dl/, opened once, with the safe-zip
// rules) and copies them into img/.
type readmeImages struct {
	r    *renderer
	ctx  context.Context
	x    *extView
	once sync.Once
	arc  *vsix.Archive
	err  error // an error reading the archive
}

func (ri *readmeImages) resolve(ref string) string {
	name := path.Clean(path.Join("extension", strings.TrimPrefix(ref, "/")))
	if !strings.HasPrefix(name, "extension/") || !fs.ValidPath(name) {
		return ""
	}
	ri.once.Do(func() {
		file := ri.r.out.path("dl/" + vsixFileName(ri.x.Latest))
		a, err := vsix.Open(file, vsix.Options{})
		if err != nil {
			// A vsix that breaks the safe-zip rules is reported by
			// verify; here its images are just not shown.
			ri.r.log.Warn("readme images: vsix not readable", "ext", ri.x.ID, "err", err)
			return
		}
		ri.arc = a
	})
	if ri.arc == nil {
		return ""
	}
	f, err := ri.arc.Open(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxDocumentBytes+1))
	if err != nil || len(b) > MaxDocumentBytes {
		return ""
	}
	src, err := ri.r.writeImage(b)
	if err != nil {
		ri.err = errors.Join(ri.err, err)
		return ""
	}
	if src == "" {
		return ""
	}
	return "../" + src
}

// outboundURL returns s as a link target when it is an http(s) URL (a
// "git+" prefix dropped), else the text to show.
func outboundURL(s string) (href, text string) {
	s = strings.TrimSpace(s)
	t := strings.TrimPrefix(s, "git+")
	if u, kind := classifyURL(t); kind == urlRemote && (strings.HasPrefix(t, "http://") || strings.HasPrefix(t, "https://")) {
		return u, ""
	}
	return "", s
}

// installCommands are the commands an extension page shows for getting
// its latest package installed: airvsx install from the registry (checked
// against the operator's trust anchor, with the policy that grants
// capabilities when the site names one; when it does not and the
// extension declares capabilities, a comment says none is granted without
// one), and the plain download for VS Code.
func installCommands(s *siteData, x *extView) []string {
	l := x.Latest
	cmd := fmt.Sprintf("airvsx install %s@%s --registry %s %s --extensions %s", l.ID, l.Version, s.Registry, s.InstallTrust, s.ExtensionsDir)
	if s.InstallPolicy != "" {
		cmd += " " + s.InstallPolicy
	}
	cmds := []string{cmd}
	if s.InstallPolicy == "" && len(x.Declared) > 0 {
		cmds = append(cmds, fmt.Sprintf("# it declares %s: granted only by a policy, add --policy POLICY.yaml (one whose capabilities grant it)", strings.Join(x.Declared, ", ")))
	}
	file := vsixFileName(l)
	if s.BaseURL != "" {
		cmds = append(cmds, fmt.Sprintf("curl -fLO %s/dl/%s", s.BaseURL, file))
	}
	cmds = append(cmds, "code --install-extension "+file)
	return cmds
}
