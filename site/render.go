package site

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
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
		"join":       strings.Join,
		"formatTime": formatTime,
	}).ParseFS(templateFS, "templates/*.html"))
})

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
	siteIn   string     // siteInputs: what every page shows of the site
	prev     *siteState // the state of the site being re-rendered; nil for a full render
	mu       sync.Mutex // guards next
	next     *siteState // the state this render leaves
}

// page renders and writes one page.
func (r *renderer) page(name, tmpl string, data *pageData) error {
	return r.writePage(name, tmpl, data, false)
}

// pageIfChanged is page for a page always rendered (the home page, the
// publishers page): written only when its bytes changed.
func (r *renderer) pageIfChanged(name, tmpl string, data *pageData) error {
	return r.writePage(name, tmpl, data, true)
}

func (r *renderer) writePage(name, tmpl string, data *pageData, ifChanged bool) error {
	data.Site = r.m.site
	var buf bytes.Buffer
	if err := templates().ExecuteTemplate(&buf, tmpl, data); err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	written := true
	var err error
	if ifChanged {
		written, err = r.out.writeIfChanged(name, buf.Bytes())
	} else {
		err = r.out.write(name, buf.Bytes())
	}
	if err != nil {
		return err
	}
	if written {
		r.out.pages.Add(1)
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

// renderExtension copies every vsix of x into dl/ (or verifies the ones
// it links), the icon and README images into img/, and writes x's page.
// It returns the files it wrote besides the page (the same image may also
// be another page's).
func (r *renderer) renderExtension(ctx context.Context, x *extView) ([]string, error) {
	var files []string
	for _, e := range x.Entries {
		if err := r.download(ctx, e); err != nil {
			return nil, err
		}
		if r.m.site.Downloads == DownloadsCopy {
			files = append(files, e.Href)
		}
	}
	l := x.Latest
	man, err := artifact.EntryManifest(ctx, r.st, l)
	if err != nil {
		return nil, err
	}
	p := &extPage{X: x}
	if ly, ok := man.Layer(artifact.RoleIcon); ok {
		if p.IconNote = r.oversize(x, "icon", ly); p.IconNote == "" {
			if x.Icon, err = r.copyImage(ctx, x, ly); err != nil {
				return nil, fmt.Errorf("icon: %w", err)
			}
		}
	}
	images := &readmeImages{r: r, ctx: ctx, x: x}
	if p.Readme, p.ReadmeNote, err = r.document(ctx, x, man, artifact.RoleReadme, images.resolve); err != nil {
		return nil, fmt.Errorf("readme: %w", err)
	}
	images.close()
	if images.err != nil {
		return nil, fmt.Errorf("readme image: %w", images.err)
	}
	if p.Changelog, _, err = r.document(ctx, x, man, artifact.RoleChangelog, nil); err != nil {
		return nil, fmt.Errorf("changelog: %w", err)
	}
	if ly, ok := man.Layer(artifact.RoleLicense); ok && r.oversize(x, "licence text", ly) != "" {
		p.LicenseNote = r.oversize(x, "licence text", ly)
	} else if ok {
		b, err := r.readLayer(ctx, x, ly)
		if err != nil {
			return nil, fmt.Errorf("license: %w", err)
		}
		p.License = string(bytes.ToValidUTF8(b, []byte("\uFFFD")))
	}
	p.Repository, p.RepoText = outboundURL(l.Repository)
	p.Homepage, p.HomeText = outboundURL(l.Homepage)
	p.Install = installCommands(r.m.site, x)
	if x.Icon != "" {
		files = append(files, x.Icon)
	}
	files = append(files, images.written...)
	return files, r.page(x.Page, "ext.html", &pageData{Root: "../", Title: x.DisplayName, Ext: p})
}

// download makes the download of one vsix: a copy into dl/, verified
// while read (DownloadsCopy); a read of the stored blob that verifies it
// before a page links it (DownloadsLink); nothing for DownloadsNone.
func (r *renderer) download(ctx context.Context, e entryView) error {
	mode := r.m.site.Downloads
	if mode == DownloadsNone {
		return nil
	}
	rc, err := r.st.OpenBlob(ctx, artifact.Repo(e.ID), index.SHA256Digest(e.VsixSHA256), e.VsixSize)
	if err != nil {
		return fmt.Errorf("vsix %s: %w", e.File, err)
	}
	defer rc.Close()
	if mode == DownloadsLink {
		if _, err := io.Copy(io.Discard, rc); err != nil {
			return fmt.Errorf("vsix %s: %w", e.File, err)
		}
		return nil
	}
	if err := r.out.copyFrom(e.Href, rc); err != nil {
		return fmt.Errorf("vsix %s: %w", e.File, err)
	}
	r.out.copied.Add(e.VsixSize)
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
// latest entry's vsix (its copy in dl/, or else the stored blob verified
// first, opened once, with the safe-zip rules) and copies them into img/.
type readmeImages struct {
	r    *renderer
	ctx  context.Context
	x    *extView
	once sync.Once
	arc  *vsix.Archive
	blob *os.File // the stored blob arc reads, when not the copy
	err  error    // an error reading the archive

	written []string // the images resolved
}

// open opens the latest entry's vsix.
func (ri *readmeImages) open() (*vsix.Archive, error) {
	l := ri.x.Latest
	if ri.r.m.site.Downloads == DownloadsCopy {
		return vsix.Open(ri.r.out.path("dl/"+vsixFileName(l)), vsix.Options{})
	}
	f, err := store.OpenBlobAt(ri.ctx, ri.r.st, artifact.Repo(l.ID), index.SHA256Digest(l.VsixSHA256), l.VsixSize, nil, "")
	if err != nil {
		return nil, err
	}
	a, err := vsix.NewReader(f, l.VsixSize, vsix.Options{})
	if err != nil {
		f.Close()
		return nil, err
	}
	ri.blob = f
	return a, nil
}

// close closes what open opened.
func (ri *readmeImages) close() {
	if ri.arc != nil {
		ri.arc.Close()
	}
	if ri.blob != nil {
		ri.blob.Close()
	}
}

func (ri *readmeImages) resolve(ref string) string {
	name := path.Clean(path.Join("extension", strings.TrimPrefix(ref, "/")))
	if !strings.HasPrefix(name, "extension/") || !fs.ValidPath(name) {
		return ""
	}
	ri.once.Do(func() {
		a, err := ri.open()
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
	ri.written = append(ri.written, src)
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
	switch s.Downloads {
	case DownloadsNone:
		return cmds
	case DownloadsLink:
		// The stored blob's name is its digest: curl names the file.
		if s.BaseURL != "" {
			base, _ := url.Parse(s.BaseURL + "/")
			ref, _ := url.Parse(x.LatestFile.Href)
			cmds = append(cmds, fmt.Sprintf("curl -fL -o %s %s", file, base.ResolveReference(ref)))
		}
	default:
		if s.BaseURL != "" {
			cmds = append(cmds, fmt.Sprintf("curl -fLO %s/dl/%s", s.BaseURL, file))
		}
	}
	cmds = append(cmds, "code --install-extension "+file)
	return cmds
}
