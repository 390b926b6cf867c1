package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
)

// ErrClosed is returned by Reload once the server is closed.
var ErrClosed = errors.New("serve: the server is closed")

// Options configure a Server. Open and Anchor are required; the zero
// value of every other field works.
type Options struct {
	// Open opens the registry for reading, afresh on every call: New
	// calls it once, Watch on every poll (a git or OCI place is read as
	// it is then).
	Open func(ctx context.Context) (store.Store, error)
	// OpenPerRequest opens the registry for each request that reads its
	// bytes (and for each render of the static catalog) instead of
	// keeping the store of the snapshot open: a directory registry's
	// readers hold a lock that airvsx gc waits for, and a server that
	// never closes its store would hold gc up for ever. Default false:
	// the snapshot's store stays open (an OCI registry's connections, a
	// git repository).
	OpenPerRequest bool
	// Anchor is what the operator trusts: a pinned root or the signer's
	// key, as verify takes it.
	Anchor trust.Anchor
	// State is verify's state directory: a catalog older than one
	// recorded there is refused, and each catalog served is recorded.
	// Default nil: no state (only the catalog being served is compared
	// with).
	State *trust.StateDir
	// Now is the clock metadata expiry is checked against. Default
	// time.Now.
	Now func() time.Time
	// BaseURL is the public URL the server is reached at (behind a proxy,
	// with a path prefix); the URLs in answers start with it. Default "":
	// each answer's URLs start with the scheme and Host of its request.
	BaseURL string
	// Poll is how often Watch looks for a new catalog. Default 10s; a
	// negative value never.
	Poll time.Duration
	// Gallery builds the VS Code gallery's query engine for each verified
	// catalog (serve/gallery). Default nil: the gallery's query routes
	// answer 501.
	Gallery func(cat *index.Catalog) Gallery
	// SiteDir is a directory serve may use to render the static catalog
	// into (one subdirectory per catalog). Default "": no static catalog;
	// "/" answers with a short page naming the APIs.
	SiteDir string
	// Logger receives the server's events; nil means discard.
	Logger *slog.Logger
	// AccessLog receives one line per request in the Combined Log
	// Format. Default nil: none.
	AccessLog io.Writer
}

// Server answers the editors' requests from the verified snapshot it
// holds.
type Server struct {
	opts     Options
	log      *slog.Logger
	cur      atomic.Pointer[snapshot]
	reloadMu sync.Mutex
	refused  struct {
		timestamp []byte
		err       error
	}
	manifests *manifestCache
	verified  *verifiedFiles
	handler   http.Handler
	renders   sync.WaitGroup
	logMu     sync.Mutex
}

// New verifies the registry and returns a server for it; a registry that
// does not verify is refused with the error that says why.
func New(ctx context.Context, opts Options) (*Server, error) {
	if opts.Open == nil {
		return nil, errors.New("serve: no registry to open")
	}
	if opts.Anchor.Root == nil && opts.Anchor.Key == nil {
		return nil, errors.New("serve: no trust anchor: give a pinned root or the signer's public key")
	}
	if opts.BaseURL != "" {
		u, err := url.Parse(opts.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return nil, fmt.Errorf("serve: base URL %q is not an http or https URL without query or fragment", opts.BaseURL)
		}
		opts.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	}
	if opts.Poll == 0 {
		opts.Poll = 10 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, log: log, manifests: newManifestCache(maxCachedManifests), verified: newVerifiedFiles(maxVerifiedFiles)}
	snap, err := s.load(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("serve: the registry does not verify, so it is not served: %w", err)
	}
	s.startSite(ctx, snap, false)
	s.cur.Store(snap)
	s.handler = s.routes()
	log.Info("serving a verified catalog", "serial", snap.cat.Serial, "catalog", snap.digest, "entries", len(snap.cat.Entries), "extensions", len(snap.exts))
	return s, nil
}

// Serial returns the serial and digest of the catalog being served; 0
// and "" once the server is closed.
func (s *Server) Serial() (int64, string) {
	sn := s.acquire()
	if sn == nil {
		return 0, ""
	}
	defer sn.release()
	return sn.cat.Serial, sn.digest
}

// Close drops the snapshot being served (its store closes once the
// requests in flight are done), after a Reload in progress and the site
// renders stop; a Reload after it returns ErrClosed.
func (s *Server) Close() error {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	s.renders.Wait()
	if old := s.cur.Swap(nil); old != nil {
		old.release()
	}
	return nil
}

// Handler returns the server's HTTP handler: every route, with the
// request log, limits and recovery around it.
func (s *Server) Handler() http.Handler { return s.handler }

// base is the public base URL for the answers to r.
func (s *Server) base(r *http.Request) string {
	if s.opts.BaseURL != "" {
		return s.opts.BaseURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// routes is the server's mux, wrapped.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/", s.openVSX)
	mux.HandleFunc("POST /api/-/query", s.openVSXQueryPost)
	mux.HandleFunc("POST /api/v2/-/query", s.openVSXQueryPost)
	mux.HandleFunc("GET /vscode/asset/{ns}/{name}/{version}/{asset...}", s.galleryAsset)
	mux.HandleFunc("GET /vscode/gallery/publishers/{ns}/vsextensions/{name}/{version}/vspackage", s.galleryPackage)
	mux.HandleFunc("POST /vscode/gallery/extensionquery", s.galleryQuery)
	mux.HandleFunc("POST /_apis/public/gallery/extensionquery", s.galleryQuery)
	mux.HandleFunc("GET /vscode/gallery/{ns}/{name}/latest", s.galleryLatest)
	mux.HandleFunc("GET /vscode/gallery/vscode/{ns}/{name}/latest", s.galleryLatest)
	mux.HandleFunc("POST /vscode/gallery/publishers/{ns}/extensions/{name}/{version}/stats", s.galleryStats)
	mux.HandleFunc("GET /vscode/item", s.galleryItem)
	mux.HandleFunc("GET "+ControlPath, s.controlJSON)
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /", s.site)
	return s.wrap(mux)
}

// expired reports whether sn's metadata has expired at now, and when it
// did: an expired registry no longer verifies, so nothing of it is served
// (fail closed, as verify and install refuse it).
func (sn *snapshot) expired(now time.Time) (time.Time, bool) {
	return sn.expires, !sn.expires.IsZero() && now.After(sn.expires)
}

// healthz answers 200 with the serial and digest of the catalog served,
// all three of one snapshot.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	sn := s.acquire()
	if sn == nil {
		httpError(w, http.StatusServiceUnavailable, "the server is closed")
		return
	}
	defer sn.release()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if exp, ok := sn.expired(s.opts.Now()); ok {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, "expired serial %d %s at %s\n", sn.cat.Serial, sn.digest, exp.Format(time.RFC3339))
		return
	}
	fmt.Fprintf(w, "ok serial %d %s\n", sn.cat.Serial, sn.digest)
}
