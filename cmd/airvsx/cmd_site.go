package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/place"
	"github.com/airvsx/airvsx/policies"
	"github.com/airvsx/airvsx/site"
)

type siteOptions struct {
	registry   registryFlags // --registry and the network flags of a docker:// place
	out        string
	baseURL    string
	title      string
	anchor     anchorFlags
	unverified bool
	policy     string
	downloads  string
	json       bool
}

func newSiteCommand(g *globals) *cobra.Command {
	var opts siteOptions
	cmd := &cobra.Command{
		Use: "site --registry PLACE --out DIR (--root root.json | --key PREFIX.pub | --unverified)",
		Example: `  airvsx site --registry /media/usb/registry --key airvsx.pub --out ./catalog
  # then open ./catalog/index.html in a browser, straight from file://`,
		Short: "Render a registry's catalog as a static HTML site that works from file://",
		Long: `Site renders the registry's signed catalog into a directory of plain HTML,
one style sheet and one small script: a home page with instant search and
filters, a page per extension (README, versions, capabilities, downloads,
download commands), and pages per category and publisher. Open index.html
from a USB stick or serve the directory from any static web server; no
page requests anything outside the site.

The catalog's signature is checked first, against --root (a pinned
root.json) or --key (the signer's public key). Without either, or when the
check fails, site refuses, unless --unverified is given: then every page
carries a banner saying the catalog is not verified.

The site is rendered into a temporary directory and swapped into --out in
one step. --out must be absent, empty, or a site airvsx rendered before.

Downloads: with --downloads link the pages link the packages stored in
the registry by a relative path (the site beside the registry, on the same
file system; serve or carry both together), each verified against the
catalog first, and nothing is copied; with copy every package is copied
into the site's dl/ (a stick that carries only the site); with none the
pages offer no package and point at the registry. By default site links
when the registry is a directory on the same file system as --out, else
copies, and says which on stderr.

Each extension page shows the airvsx install command that installs it: the
registry, the trust anchor and --policy as given here, by absolute paths, so
that it works as printed from any directory on this machine (on another
machine, only where the registry, the key and the policy are at the same
paths). Without --policy, the page of an extension that declares
capabilities says that none is granted without one.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSite(cmd, g, opts)
		},
	}
	f := cmd.Flags()
	opts.registry.add(cmd)
	f.StringVar(&opts.out, "out", "", "the directory to render the site into")
	f.StringVar(&opts.baseURL, "base-url", "", "the http(s) URL the site will be served from (shown in download commands)")
	f.StringVar(&opts.title, "title", "", `the site's title (default "airvsx registry")`)
	opts.anchor.add(cmd, true)
	f.StringVar(&opts.policy, "policy", "", "the policy the pages' install commands give install (--policy), which grants the capabilities extensions declare (default: none, and pages say so)")
	f.StringVar(&opts.downloads, "downloads", "", "how pages offer packages: copy (into the site's dl/), link (to the packages in the registry, copying nothing) or none (default: link when the registry is a directory on the same file system as --out, else copy)")
	f.BoolVar(&opts.unverified, "unverified", false, "render even when the catalog cannot be verified; every page then says so")
	f.BoolVar(&opts.json, "json", false, "print the result as JSON")
	return cmd
}

func runSite(cmd *cobra.Command, g *globals, opts siteOptions) error {
	switch {
	case opts.registry.place == "":
		return usagef("site: --registry is required")
	case opts.out == "":
		return usagef("site: --out is required")
	case opts.anchor.root != "" && opts.anchor.key != "":
		return usagef("site: give --root or --key, not both")
	case !opts.anchor.given() && !opts.unverified:
		return usagef("site: no trust anchor: give --root root.json or --key PREFIX.pub (or --unverified to render an unverified catalog with a warning banner)")
	}
	if err := outsideRegistry("site", "--out", opts.out, opts.registry.place); err != nil {
		return err
	}
	so := site.Options{
		Out: opts.out, Title: opts.title, BaseURL: opts.baseURL, Registry: shellQuote(absPlace(opts.registry.place)),
		Unverified: opts.unverified, Logger: g.logger(),
	}
	if err := chooseDownloads(g, &so, opts); err != nil {
		return err
	}
	// Pages show the install command with the registry, the anchor and
	// the policy given here, by absolute paths: it works as printed from
	// any directory (a page opened from file:// says nothing of where the
	// shell is), wherever they are on this machine's file system.
	switch {
	case opts.anchor.key != "":
		so.InstallTrust = "--key " + shellQuote(absPath(opts.anchor.key))
	case opts.anchor.root != "":
		so.InstallTrust = "--root " + shellQuote(absPath(opts.anchor.root))
	}
	if opts.policy != "" {
		// Checked now: a page must not name a policy install refuses.
		if _, err := policies.Load(opts.policy); err != nil {
			return fmt.Errorf("site: --policy: %w", err)
		}
		so.InstallPolicy = "--policy " + shellQuote(absPath(opts.policy))
	}
	if opts.anchor.given() {
		var err error
		if so.Anchor, so.State, err = opts.anchor.resolve("site"); err != nil {
			return err
		}
	}
	st, err := opts.registry.open(cmd.Context())
	if err != nil {
		return fmt.Errorf("site: %w", err)
	}
	defer st.Close()
	prog := stderrProgress(g, opts.json)
	if prog.On() {
		so.Progress = func(done, total int) { prog.Printf("site: rendering %d/%d pages", done, total) }
	}
	res, err := site.Render(cmd.Context(), st, so)
	prog.Done()
	if errors.Is(err, site.ErrNotVerified) {
		fmt.Fprintf(g.stderr, "airvsx: site: %v\n", err)
		fmt.Fprintf(g.stderr, "airvsx: site: nothing rendered. See every problem with:\n  %s\n", siteVerifyHint(opts))
		fmt.Fprintf(g.stderr, "or render anyway, every page marked not verified, with:\n  %s\n", siteUnverifiedHint(opts))
		return errFailed
	}
	if errors.Is(err, store.ErrMismatch) {
		fmt.Fprintf(g.stderr, "airvsx: site: %v\n", err)
		fmt.Fprintf(g.stderr, "airvsx: site: nothing rendered. See every problem with:\n  %s\n", siteVerifyHint(opts))
		return errFailed
	}
	if err != nil {
		return fmt.Errorf("site: %w", err)
	}
	if opts.json {
		return g.printJSON(res)
	}
	state := "verified"
	if !res.Verified {
		state = "NOT verified (" + res.Reason + ")"
	}
	fmt.Fprintf(g.stdout, "site: %s\n", res.Out)
	fmt.Fprintf(g.stdout, "catalog: serial %d, %s, %s\n", res.Serial, res.Catalog, state)
	fmt.Fprintf(g.stdout, "rendered: %d extensions, %d packages, %d pages, %d files, %d bytes\n",
		res.Extensions, res.Entries, res.Pages, res.Files, res.Bytes)
	how := "a full render"
	if res.Incremental {
		how = "in place, only what changed"
	}
	fmt.Fprintf(g.stdout, "written: %d of %d pages (%s)\n", res.Written, res.Pages, how)
	switch res.Downloads {
	case site.DownloadsCopy:
		fmt.Fprintf(g.stdout, "downloads: copy (%d bytes of packages copied into dl/)\n", res.CopiedBytes)
	case site.DownloadsLink:
		fmt.Fprintf(g.stdout, "downloads: link (the packages in the registry, nothing copied)\n")
	default:
		fmt.Fprintf(g.stdout, "downloads: none (the pages point at the registry)\n")
	}
	return nil
}

// chooseDownloads sets so.Downloads from --downloads, and by default
// picks link where the layout allows (a directory registry on the file
// system of --out), else copy, saying which on stderr (not with --json,
// whose result says it).
func chooseDownloads(g *globals, so *site.Options, opts siteOptions) error {
	var dir string
	if p, k, err := place.Parse(opts.registry.place); err == nil && k.Name == store.PlaceDir {
		dir = p.Path
	}
	if opts.downloads != "" {
		d, err := site.ParseDownloads(opts.downloads)
		if err != nil {
			return usagef("site: --downloads: %v", err)
		}
		so.Downloads = d
		if d != site.DownloadsLink {
			return nil
		}
		if dir == "" {
			return usagef("site: --downloads link: the registry %s is not a directory; link needs one (use --downloads copy)", opts.registry.place)
		}
		if _, err := site.LinkPath(opts.out, dir); err != nil {
			return usagef("site: --downloads link: %v; use --downloads copy", err)
		}
		so.RegistryDir = dir
		return nil
	}
	why := "the registry is not a directory"
	if dir != "" {
		_, err := site.LinkPath(opts.out, dir)
		if err == nil {
			so.Downloads, so.RegistryDir = site.DownloadsLink, dir
			if opts.json {
				return nil
			}
			fmt.Fprintf(g.stderr, "site: downloads: link (the pages link the packages in %s; nothing is copied; --downloads copy for a site that carries them)\n", opts.registry.place)
			return nil
		}
		why = err.Error()
	}
	so.Downloads = site.DownloadsCopy
	if opts.json {
		return nil
	}
	fmt.Fprintf(g.stderr, "site: downloads: copy (packages copied into %s: %s)\n", filepath.Join(opts.out, "dl"), why)
	return nil
}

// absPath is path made absolute; path itself when that fails.
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// absPlace is a registry place with its path made absolute (a directory
// or a git repository); other places as they are.
func absPlace(where string) string {
	p, k, err := place.Parse(where)
	if err != nil || !k.Local {
		return where
	}
	p.Path = absPath(p.Path)
	return p.String()
}
