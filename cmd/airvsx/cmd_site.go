package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/site"
)

type siteOptions struct {
	registry   registryFlags // --registry and the network flags of a docker:// place
	out        string
	baseURL    string
	title      string
	anchor     anchorFlags
	unverified bool
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
one step. --out must be absent, empty, or a site airvsx rendered before.`,
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
		Out: opts.out, Title: opts.title, BaseURL: opts.baseURL, Registry: shellQuote(opts.registry.place),
		Unverified: opts.unverified, Logger: g.logger(),
	}
	// Pages show the install command with the anchor given here, so it
	// works as printed from this directory.
	switch {
	case opts.anchor.key != "":
		so.InstallTrust = "--key " + shellQuote(opts.anchor.key)
	case opts.anchor.root != "":
		so.InstallTrust = "--root " + shellQuote(opts.anchor.root)
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
	return nil
}
