package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/place"
	"github.com/airvsx/airvsx/serve"
)

type serveOptions struct {
	registry  registryFlags // --registry and the network flags of a docker:// place
	anchor    anchorFlags
	addr      string
	baseURL   string
	cert      string
	certKey   string
	poll      time.Duration
	noSite    bool
	accessLog string
}

func newServeCommand(g *globals) *cobra.Command {
	var opts serveOptions
	cmd := &cobra.Command{
		Use: "serve --registry PLACE (--root root.json | --key PREFIX.pub) [--addr HOST:PORT]",
		Example: `  airvsx serve --registry /srv/airvsx/registry --key airvsx.pub --addr 0.0.0.0:8080 --base-url https://vsx.example.internal
  # then: ovsx get ns.name --registry-url https://vsx.example.internal
  # VSCodium: VSCODE_GALLERY_SERVICE_URL=https://vsx.example.internal/vscode/gallery`,
		Short: "Serve a verified registry to editors: the Open VSX API, the VS Code gallery and the catalog",
		Long: `Serve makes the registry an extension gallery for the editors of the
network, read-only: the Open VSX API (/api/, what ovsx and Theia use), the
VS Code gallery (/vscode/gallery/, what VSCodium, code-server and a VS
Code with a custom product.json use), every package and its files, and
the static catalog with its search at /.

The registry is verified first, against --root or --key and the state
directory, as verify checks its trust chain and catalog; one that does not
verify is not served. Every --poll serve looks for a new catalog (a sync
or a copy into the place) and serves it only once it verifies and does
not go back; until then, and when it fails, the catalog verified before
keeps being served. Each file is checked against the digest the catalog
pins: a directory's before its first byte is sent, another place's while
it is sent (cut off before its last byte if it does not match). Once the
served catalog's signed metadata expires nothing is served (503) until a
renewed registry verifies.

Several serve processes over one place (an OCI registry, say) behind a
load balancer scale out: none keeps state another needs.

With --cert and --cert-key serve speaks TLS only. --base-url is the URL
editors reach it at (behind a proxy); by default the URLs in answers use
the Host each request came with. Request logs go to stderr in the
Combined Log Format (--access-log FILE or off). SIGTERM or Ctrl-C stops
it gracefully.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			serveHeap()
			return runServe(cmd.Context(), g, opts)
		},
	}
	f := cmd.Flags()
	opts.registry.add(cmd)
	opts.anchor.add(cmd, true)
	f.StringVar(&opts.addr, "addr", "127.0.0.1:8080", "the address to listen on (HOST:PORT; port 0 picks one)")
	f.StringVar(&opts.baseURL, "base-url", "", "the http(s) URL editors reach the server at (default: from each request's Host)")
	f.StringVar(&opts.cert, "cert", "", "a PEM certificate (chain) to serve TLS with; needs --cert-key")
	f.StringVar(&opts.certKey, "cert-key", "", "the PEM private key of --cert")
	f.DurationVar(&opts.poll, "poll", 10*time.Second, "how often to look for a new catalog (0: never)")
	f.BoolVar(&opts.noSite, "no-site", false, "do not render the static catalog at /")
	f.StringVar(&opts.accessLog, "access-log", "-", `where request logs go: "-" for stderr, "off", or a file to append to`)
	return cmd
}

func runServe(ctx context.Context, g *globals, opts serveOptions) error {
	if opts.registry.place == "" {
		return usagef("serve: --registry is required")
	}
	if (opts.cert == "") != (opts.certKey == "") {
		return usagef("serve: --cert and --cert-key go together")
	}
	if opts.poll < 0 {
		return usagef("serve: --poll %s is negative", opts.poll)
	}
	anchor, state, err := opts.anchor.resolve("serve")
	if err != nil {
		return err
	}
	var access io.Writer
	switch opts.accessLog {
	case "-":
		access = g.stderr
	case "off", "":
	default:
		f, err := os.OpenFile(opts.accessLog, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("serve: --access-log: %w", err)
		}
		defer f.Close()
		access = f
	}
	so := serve.Options{
		Open:   func(ctx context.Context) (store.Store, error) { return opts.registry.open(ctx) },
		Anchor: anchor, State: state, BaseURL: opts.baseURL, Poll: opts.poll,
		Gallery: serve.NewGallery, Logger: g.logger(), AccessLog: access,
	}
	if opts.poll == 0 {
		so.Poll = -1
	}
	// A directory's readers hold the lock gc waits for: serve holds it
	// only while a request reads the registry.
	if _, k, err := place.Parse(opts.registry.place); err == nil && k.Name == store.PlaceDir {
		so.OpenPerRequest = true
	}
	if !opts.noSite {
		dir, err := os.MkdirTemp("", "airvsx-serve-site-")
		if err != nil {
			return fmt.Errorf("serve: a directory for the static catalog: %w", err)
		}
		defer os.RemoveAll(dir)
		so.SiteDir = dir
	}
	srv, err := serve.New(ctx, so)
	if err != nil {
		fmt.Fprintf(g.stderr, "airvsx: %v\n", err)
		hint := "airvsx verify --registry " + shellQuote(opts.registry.place)
		for _, a := range opts.anchor.args() {
			hint += " " + shellQuote(a)
		}
		fmt.Fprintf(g.stderr, "airvsx: serve: nothing served. See every problem with:\n  %s\n", hint)
		return errFailed
	}
	defer srv.Close()
	// What verifying the catalog allocated is garbage now: give it back
	// before serving, so the resident size is what the snapshot holds.
	debug.FreeOSMemory()
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go srv.Watch(wctx)
	serial, digest := srv.Serial()
	scheme := "http"
	if opts.cert != "" {
		scheme = "https"
	}
	err = serve.Serve(ctx, srv.Handler(), serve.ServeOptions{Addr: opts.addr, CertFile: opts.cert, KeyFile: opts.certKey, Logger: g.logger(),
		Ready: func(addr string) {
			fmt.Fprintf(g.stdout, "serving catalog serial %d (%s) on %s://%s\n", serial, digest, scheme, addr)
		}})
	if err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "serve: shut down\n")
	return nil
}

// serveHeap sets serve's soft memory limit, unless GOGC or GOMEMLIMIT is
// set: a long-running server holds one snapshot (two while a new one is
// verified) and allocates mostly short-lived answers, so the collector
// runs more often near serveHeapLimit instead of letting the heap grow.
func serveHeap() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(serveHeapLimit)
	}
}

// serveHeapLimit is serve's soft memory limit (serveHeap).
const serveHeapLimit = 120 << 20
