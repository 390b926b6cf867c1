package site

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
)

// Options configure Render. Out is required; the zero value of every other
// field works.
type Options struct {
	// Out is the directory the site goes to. It must be absent, empty, or a
	// site an earlier Render wrote; it is replaced atomically, or updated
	// in place file by file (see the package comment).
	Out string
	// Title is the site's title. Default "airvsx registry".
	Title string
	// BaseURL is where the site will be served from (http or https), used
	// in the download commands shown on extension pages. Default none: the
	// pages show only relative file names.
	BaseURL string
	// Registry is how pages name the registry in their "airvsx install"
	// command: the place as the operator gave it, shell-quoted. Default
	// "REGISTRY".
	Registry string
	// InstallTrust is the trust flag of that command, shell-quoted, as the
	// operator gave it to site ("--key airvsx.pub"). Default
	// "--key PUBLISHER.pub".
	InstallTrust string
	// Extensions is the extensions directory the install command names.
	// Default "~/.airvsx/extensions".
	Extensions string
	// InstallPolicy is the policy flag of that command, shell-quoted
	// ("--policy /srv/airvsx/policy.yaml"): the policy whose capabilities
	// rules grant what extensions declare. Default "": the command has
	// none, and for an extension that declares capabilities the page says
	// that without --policy none is granted.
	InstallPolicy string

	// Downloads is how pages offer the packages: DownloadsCopy (copies
	// in dl/), DownloadsLink (links to the packages in RegistryDir) or
	// DownloadsNone. Default DownloadsCopy.
	Downloads Downloads
	// RegistryDir is the directory of the registry being rendered (a
	// directory place), which DownloadsLink links into; it must be
	// reachable from Out by a relative path on one file system
	// (LinkPath). Default "": only for the other modes.
	RegistryDir string

	// Anchor is what the operator trusts: a pinned root or the signer's
	// public key, checked on every render (index/trust.Check). Default
	// zero: no anchor, so the catalog renders only with Unverified.
	Anchor trust.Anchor
	// State is the verifier's state directory: when set, a catalog older
	// than one verified before (a rollback) or a root history that changed
	// is refused. Render never writes it. Default nil: not consulted.
	State *trust.StateDir
	// Unverified renders a catalog that could not be verified (or with no
	// trust anchor at all), with a banner on every page. Default false:
	// such a catalog is refused with an error wrapping ErrNotVerified.
	Unverified bool
	// Now is the clock metadata expiry is checked against. Default
	// time.Now.
	Now func() time.Time

	// Workers is how many extensions are rendered at once. Default
	// GOMAXPROCS.
	Workers int
	// Logger receives progress; nil means discard.
	Logger *slog.Logger
	// Progress, when set, is told how many of the site's pages (extension,
	// home, category and publisher pages) are written: first with done 0
	// once the total is known, then after each page. Calls never overlap
	// and done only grows; a complete render ends with done == total.
	// Default nil: no calls.
	Progress func(done, total int)
}

// Result summarizes a render.
type Result struct {
	Out        string `json:"out"`
	Verified   bool   `json:"verified"`
	Reason     string `json:"reason,omitempty"` // why not verified
	Serial     int64  `json:"serial"`
	Catalog    string `json:"catalog"` // sha256:<hex> of the catalog
	Extensions int    `json:"extensions"`
	Entries    int    `json:"entries"`
	Pages      int    `json:"pages"` // the site's pages
	// Written is how many pages this render wrote: all of them in a full
	// render, those whose inputs changed (and the home and publishers
	// pages when they changed) in an incremental one (Incremental).
	Written     int  `json:"written"`
	Incremental bool `json:"incremental"`
	// Files and Bytes count the files this render wrote.
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
	// Downloads is how the pages offer packages; CopiedBytes is how many
	// package bytes were copied into dl/ (0 unless DownloadsCopy).
	Downloads   Downloads `json:"downloads"`
	CopiedBytes int64     `json:"copied_bytes"`
}

func (o *Options) check() error {
	var bad []string
	if o.Out == "" {
		bad = append(bad, "out: no output directory")
	}
	if o.BaseURL != "" {
		u, err := url.Parse(o.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			bad = append(bad, fmt.Sprintf("base URL: %q is not an http or https URL without query or fragment", o.BaseURL))
		}
	}
	switch o.Downloads {
	case "", DownloadsCopy, DownloadsNone:
	case DownloadsLink:
		if o.RegistryDir == "" {
			bad = append(bad, "downloads: link needs the registry's directory")
		}
	default:
		bad = append(bad, fmt.Sprintf("downloads: %q is not copy, link or none", o.Downloads))
	}
	if len(bad) > 0 {
		return fmt.Errorf("site options: %s", strings.Join(bad, "; "))
	}
	return nil
}

// Render verifies the registry's catalog (see the package comment) and
// renders the site into opts.Out, replacing what was there in one step;
// or, when opts.Out is a site it can build on (its StateFile), rewriting
// in place only the pages whose inputs changed.
func Render(ctx context.Context, st store.Store, opts Options) (*Result, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	if opts.Title == "" {
		opts.Title = "airvsx registry"
	}
	if opts.Registry == "" {
		opts.Registry = "REGISTRY"
	}
	if opts.InstallTrust == "" {
		opts.InstallTrust = "--key PUBLISHER.pub"
	}
	if opts.Extensions == "" {
		opts.Extensions = "~/.airvsx/extensions"
	}
	opts.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	if opts.Downloads == "" {
		opts.Downloads = DownloadsCopy
	}
	var linkBase string
	if opts.Downloads == DownloadsLink {
		var err error
		if linkBase, err = LinkPath(opts.Out, opts.RegistryDir); err != nil {
			return nil, fmt.Errorf("downloads: link: %w", err)
		}
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := checkOut(opts.Out); err != nil {
		return nil, err
	}
	start := time.Now()
	tr, err := readCatalog(ctx, st, &opts)
	if err != nil {
		return nil, err
	}
	log.Debug("catalog read", "entries", len(tr.cat.Entries), "verified", tr.verified, "took", time.Since(start))
	if !tr.verified {
		log.Warn("rendering an unverified catalog", "reason", tr.reason)
	}
	// A site this renderer rendered before, with the same downloads, is
	// rendered again in place, page by page, only where the inputs
	// changed; anything else is rendered in full and swapped in.
	prev := loadState(opts.Out, opts.Downloads, linkBase)
	var out *outDir
	if prev != nil {
		out = openInPlace(opts.Out)
		// Until the new state is written a crash leaves no state: the
		// next render is a full one.
		if err := out.remove(StateFile); err != nil {
			return nil, err
		}
	} else {
		var err error
		if out, err = newOutDir(opts.Out); err != nil {
			return nil, err
		}
	}
	defer out.discard()

	m := buildModel(tr, &opts, linkBase)
	pages := 2 + len(m.exts) + len(m.categories) + len(m.publishers)
	r := &renderer{st: st, out: out, docs: newDocRenderer(), m: m, log: log,
		progress: newPageProgress(opts.Progress, pages),
		siteIn:   siteInputs(m.site, linkBase), prev: prev, next: newState(opts.Downloads, linkBase)}
	log.Debug("rendering", "incremental", prev != nil, "downloads", opts.Downloads)
	start = time.Now()
	if err := r.renderExtensions(ctx, opts.Workers); err != nil {
		return nil, err
	}
	log.Debug("extension pages rendered", "extensions", len(m.exts), "took", time.Since(start))
	start = time.Now()
	if err := r.renderLists(ctx, opts.Workers); err != nil {
		return nil, err
	}
	log.Debug("home, category and publisher pages rendered", "took", time.Since(start))
	// The search index holds the icons: written after the extensions.
	if err := r.writeAssets(); err != nil {
		return nil, err
	}
	if prev != nil {
		for _, name := range stale(prev, r.next) {
			if err := out.remove(name); err != nil {
				return nil, err
			}
		}
	}
	if err := out.write(StateFile, r.next.encode()); err != nil {
		return nil, err
	}
	start = time.Now()
	if err := out.commit(); err != nil {
		return nil, err
	}
	log.Debug("site swapped into place", "took", time.Since(start))
	log.Info("site rendered", "out", opts.Out, "extensions", len(m.exts), "files", out.files.Load(), "bytes", out.bytes.Load())
	return &Result{
		Out: opts.Out, Verified: tr.verified, Reason: tr.reason,
		Serial: tr.cat.Serial, Catalog: tr.digest,
		Extensions: len(m.exts), Entries: len(tr.cat.Entries),
		Pages: pages, Written: int(out.pages.Load()), Incremental: prev != nil,
		Files: int(out.files.Load()), Bytes: out.bytes.Load(),
		Downloads: opts.Downloads, CopiedBytes: out.copied.Load(),
	}, nil
}

// renderExtensions renders every extension page and copies its files,
// workers at a time; it reports every extension that failed.
func (r *renderer) renderExtensions(ctx context.Context, workers int) error {
	if err := parallel(ctx, workers, len(r.m.exts), func(_ context.Context, i int) error {
		r.m.exts[i].inputs = extInputs(r.siteIn, r.m.exts[i])
		return nil
	}); err != nil {
		return err
	}
	if r.prev != nil {
		// The images of the previous render are there: not written again.
		for name := range r.prev.files() {
			if strings.HasPrefix(name, "img/") {
				r.out.claim(name)
			}
		}
	}
	return parallel(ctx, workers, len(r.m.exts), func(ctx context.Context, i int) error {
		x := r.m.exts[i]
		if ps, ok := r.unchanged(x.Page, x.inputs); ok {
			x.Icon = ps.Icon
			r.keep(x.Page, ps)
			return nil
		}
		files, err := r.renderExtension(ctx, x)
		if err != nil {
			return fmt.Errorf("%s: %w", x.ID, err)
		}
		r.keep(x.Page, pageState{Inputs: x.inputs, Icon: x.Icon, Files: files})
		return nil
	})
}

// parallel calls f(0) … f(n-1), workers at a time, and returns every error
// joined; after 20 errors it stops starting new calls.
func parallel(ctx context.Context, workers, n int, f func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				if err := f(ctx, i); err != nil {
					mu.Lock()
					errs = append(errs, err)
					if len(errs) >= 20 {
						cancel()
					}
					mu.Unlock()
				}
			}
		})
	}
feed:
	for i := range n {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if len(errs) > 0 {
		return fmt.Errorf("render: %w", errors.Join(errs...))
	}
	return ctx.Err()
}
