package ocistore

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/internal/retry"
)

// The repositories under the prefix that are not extensions. Extension
// repositories have two path components under the prefix, these one, so
// they cannot collide.
const (
	metadataRepo   = "airvsx-metadata"
	quarantineRepo = "airvsx-quarantine"
	metadataTag    = "metadata"
)

// ErrInsecureRemote is wrapped when plain HTTP is asked for a host that is
// neither a loopback nor a private address without AllowInsecureRemote.
var ErrInsecureRemote = errors.New("plain HTTP to a remote registry")

// InsecureRemoteError is the refusal of Open to speak plain HTTP
// (Options.Insecure) to Host, which is neither a loopback nor a private
// address, without Options.AllowInsecureRemote. It wraps
// ErrInsecureRemote. The CLI words it with its flags.
type InsecureRemoteError struct {
	Place string // the place opened, as written
	Host  string
}

func (e *InsecureRemoteError) Error() string {
	return fmt.Sprintf("open %s: %s is not a loopback or private address; plain HTTP to it needs AllowInsecureRemote too: %v", e.Place, e.Host, ErrInsecureRemote)
}

// Unwrap returns ErrInsecureRemote.
func (e *InsecureRemoteError) Unwrap() error { return ErrInsecureRemote }

// Options configure Open. The zero value talks TLS with the system roots,
// with the docker configuration's credentials.
type Options struct {
	// Insecure talks plain HTTP instead of TLS. Default false. Open refuses
	// it for a host that is not a loopback or private address unless
	// AllowInsecureRemote is set too.
	Insecure bool
	// AllowInsecureRemote allows Insecure for any host. Default false.
	AllowInsecureRemote bool
	// AlsoDial names the hosts ("HOST" for any port, or "HOST:PORT")
	// the store may reach besides its place's own: a token service
	// (the realm a 401 names) or blob storage (where a blob download
	// redirects) that the registry keeps on another host. Redirects to
	// them keep their scheme; plain HTTP to one follows the rules of
	// Insecure for that host. Default none: only the place's host.
	AlsoDial []string
	// RootCAs are the certificate authorities TLS trusts. Default nil: the
	// system roots.
	RootCAs *x509.CertPool
	// Keychain resolves credentials. Default nil: authn.DefaultKeychain
	// (the docker configuration and its credential helpers).
	Keychain authn.Keychain
	// Signer, when set, signs every entry manifest Tag points at (artifact
	// type store.ArtifactType) with a cosign simple-signing signature
	// (see SignatureTag). Default nil: no signatures.
	Signer signature.Signer
	// ReadOnly refuses every write with store.ErrReadOnly. Default false.
	ReadOnly bool
	// Concurrency bounds the requests in flight. Default 0: 4.
	Concurrency int
	// Retries is how many times a failed request is tried again. Default
	// 0: 5; a negative value: none.
	Retries int
	// Backoff is the least wait before a retry: the wait before retry n
	// (0 for the first) is a random time between Backoff and
	// min(Backoff·2^(n+1), a minute), or longer when a Retry-After header
	// asks for more (see internal/retry). Default 0: one second.
	Backoff time.Duration
	// MaxRetryAfter caps every wait before a retry, the one a Retry-After
	// header asks for included. Default 0: two minutes.
	MaxRetryAfter time.Duration
	// Transport is the base HTTP transport. Default nil: a transport that
	// dials only the place's host, with no proxy from the environment.
	// Tests set it to inject faults.
	Transport http.RoundTripper
	// Logger receives debug records (retries, mounts). Default nil:
	// discard.
	Logger *slog.Logger
	// Now is the clock of quarantine records. Default nil: time.Now.
	Now func() time.Time
}

// Store is a registry in an OCI distribution registry (see the package
// comment). It is safe for concurrent use by multiple goroutines.
//
// Every Store method's arguments and the read-only refusal are checked by
// store.Checked before a request is made: Open returns the store wrapped,
// and the unchecked one is not reachable.
type Store struct {
	store.Store // the checked ociStore
	o           *ociStore
}

// ociStore is the unchecked store.
type ociStore struct {
	place  store.Place
	reg    name.Registry
	base   *url.URL // scheme://host
	opts   Options
	log    *slog.Logger
	hc     http.RoundTripper // the base transport
	rt     *retrying         // over hc, under the authentication
	now    func() time.Time
	auth   authn.Authenticator
	metaMu sync.Mutex // serializes WriteMetadata and Quarantine

	mu     sync.Mutex
	pinged bool                         // the registry's challenge is known
	shared http.RoundTripper            // every repository's transport, when not per repository
	trans  map[string]http.RoundTripper // per registry repository (a bearer token service)
	seenIn map[string]string            // digest → a repository that holds it
	marked map[string]bool              // repositories markRepo has marked
}

var _ store.Store = (*Store)(nil)

// CheckAccess makes one request, untried again (a HEAD of the metadata
// manifest, with the rights the store will ask for: pull, and push unless
// read-only), and returns its error: one wrapping ErrUnauthorized when the
// registry refuses the credentials. A registry without metadata yet is
// no error. Commands call it first, so that a registry that wants a login
// says so at once instead of through whatever read failed first.
func (s *Store) CheckAccess(ctx context.Context) error { return s.o.CheckAccess(ctx) }

// Place returns the place the store is at.
func (s *Store) Place() store.Place { return s.o.place }

// Open returns the store of a docker place. It makes no request: the
// first call does.
func Open(ctx context.Context, p store.Place, opts Options) (*Store, error) {
	if p.Kind != store.PlaceDocker {
		return nil, fmt.Errorf("open %s: not a docker:// place", p)
	}
	host := p.Host
	if opts.Insecure && !opts.AllowInsecureRemote && !localHost(host) {
		return nil, &InsecureRemoteError{Place: p.String(), Host: host}
	}
	var nopts []name.Option
	scheme := "https"
	if opts.Insecure {
		nopts = append(nopts, name.Insecure)
		scheme = "http"
	}
	reg, err := name.NewRegistry(host, append(nopts, name.StrictValidation)...)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	s := &ociStore{
		place:  p,
		reg:    reg,
		base:   &url.URL{Scheme: scheme, Host: host},
		opts:   opts,
		log:    opts.Logger,
		hc:     opts.Transport,
		now:    opts.Now,
		trans:  map[string]http.RoundTripper{},
		seenIn: map[string]string{},
		marked: map[string]bool{},
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	for _, h := range opts.AlsoDial {
		if h == "" || strings.ContainsAny(h, "/@?#") {
			return nil, fmt.Errorf("open %s: also dial %q: want HOST or HOST:PORT", p, h)
		}
	}
	if s.hc == nil {
		s.hc = baseTransport(append([]string{host}, opts.AlsoDial...), opts.RootCAs)
	}
	if !opts.Insecure {
		// go-containerregistry falls back to plain HTTP for loopback and
		// private addresses by itself; without Insecure nothing may.
		s.hc = tlsOnly{s.hc}
	}
	n := opts.Concurrency
	if n <= 0 {
		n = 4
	}
	s.rt = &retrying{next: s.hc, sem: make(chan struct{}, n), retries: opts.Retries, log: s.log, redirect: s.redirectable,
		backoff: retry.Backoff{Min: opts.Backoff, Max: time.Minute, MaxWait: opts.MaxRetryAfter}}
	switch {
	case s.rt.retries == 0:
		s.rt.retries = 5
	case s.rt.retries < 0:
		s.rt.retries = 0
	}
	if s.rt.backoff.Min <= 0 {
		s.rt.backoff.Min = time.Second
	}
	if s.rt.backoff.MaxWait <= 0 {
		s.rt.backoff.MaxWait = 2 * time.Minute
	}
	kc := opts.Keychain
	if kc == nil {
		kc = authn.DefaultKeychain
	}
	s.auth, err = authn.Resolve(ctx, kc, reg)
	if err != nil {
		return nil, fmt.Errorf("open %s: credentials for %s: %w", p, host, err)
	}
	return &Store{Store: store.Checked(s, opts.ReadOnly), o: s}, nil
}

// CheckAccess implements Store.CheckAccess.
func (s *ociStore) CheckAccess(ctx context.Context) error {
	rpath := s.repoPath(metadataRepo)
	resp, err := s.send(once(ctx), rpath, http.MethodHead, s.endpoint("/v2/"+rpath+"/manifests/"+metadataTag, nil),
		http.Header{"Accept": {manifestAccept}}, nil, 0, 200, 404)
	if err != nil {
		return fmt.Errorf("%s: %w", s.place, err)
	}
	drain(resp)
	return nil
}

// Close releases idle connections.
func (s *ociStore) Close() error {
	if t, ok := s.hc.(interface{ CloseIdleConnections() }); ok {
		t.CloseIdleConnections()
	}
	return nil
}

// dialable reports whether addr (host:port) is one of hosts, each
// "HOST" (any port) or "HOST:PORT"; names compare without case.
func dialable(hosts []string, addr string) bool {
	ah, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	for _, h := range hosts {
		if _, _, err := net.SplitHostPort(h); err == nil {
			if strings.EqualFold(addr, h) {
				return true
			}
		} else if strings.EqualFold(ah, strings.Trim(h, "[]")) {
			return true
		}
	}
	return false
}

// localHost reports whether hostport names a loopback or private address
// (or "localhost"), where plain HTTP is allowed with Insecure alone.
func localHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	return a.IsLoopback() || a.IsPrivate()
}

// baseTransport dials only hosts (whatever a redirect or an auth realm
// names, connections go there alone), uses no proxy from the environment,
// and trusts roots (nil: the system's).
//
// By hand: go-containerregistry has no allow-list of hosts. Its remote
// package refuses redirects to private addresses (checkRedirectSSRF) but
// follows any other, and its transports reach whatever token realm a
// registry's challenge names; the dialer is the one place every
// connection passes, the token service's and blob storage's included.
func baseTransport(hosts []string, roots *x509.CertPool) *http.Transport {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if !dialable(hosts, addr) {
				return nil, fmt.Errorf("dial %s: the registry store dials only %s (name another host with --also-dial)", addr, strings.Join(hosts, ", "))
			}
			return d.DialContext(ctx, network, addr)
		},
		TLSClientConfig:       &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   30 * time.Second,
		ResponseHeaderTimeout: 60 * time.Second,
		MaxIdleConnsPerHost:   16,
		ForceAttemptHTTP2:     true,
	}
}

// tlsOnly refuses every request that is not HTTPS.
type tlsOnly struct{ http.RoundTripper }

func (t tlsOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "https" {
		return nil, fmt.Errorf("%s %s: plain HTTP needs --insecure", req.Method, req.URL.Redacted())
	}
	return t.RoundTripper.RoundTrip(req)
}

// CloseIdleConnections closes the idle connections of the transport
// underneath.
func (t tlsOnly) CloseIdleConnections() {
	if c, ok := t.RoundTripper.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// repoPath is the registry repository of a store repository ("<ns>/<name>")
// or of one of the store's own repositories.
func (s *ociStore) repoPath(repo string) string { return s.place.Prefix + "/" + repo }

// transport returns the authenticated transport for a registry repository
// (pull, and push unless read-only), made on first use. A registry that
// asks for no credentials or for basic ones gets one transport for all
// its repositories (made once: each one made pings the registry); one
// with a bearer token service gets one per repository, each with its own
// token's scope.
func (s *ociStore) transport(ctx context.Context, rpath string) (http.RoundTripper, error) {
	s.mu.Lock()
	t, pinged := s.trans[rpath], s.pinged
	if s.shared != nil {
		t = s.shared
	}
	s.mu.Unlock()
	if t != nil {
		return t, nil
	}
	// The ping and the first token are asked for once: a registry that
	// does not answer is reported at once (store.ErrUnreachable).
	if !pinged {
		ch, err := transport.Ping(once(ctx), s.reg, s.rt)
		if err != nil {
			return nil, s.connectError(ctx, err)
		}
		if !strings.EqualFold(ch.Scheme, "bearer") {
			t, err := s.newTransport(ctx, nil)
			if err != nil {
				return nil, err
			}
			s.mu.Lock()
			if s.shared == nil {
				s.shared = t
			}
			s.pinged, t = true, s.shared
			s.mu.Unlock()
			return t, nil
		}
		s.mu.Lock()
		s.pinged = true
		s.mu.Unlock()
	}
	t, err := s.newTransport(ctx, s.scopes(rpath))
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if old := s.trans[rpath]; old != nil {
		t = old
	} else {
		s.trans[rpath] = t
	}
	s.mu.Unlock()
	return t, nil
}

// scopes are the token scopes of a registry repository's requests ("":
// the catalog's).
func (s *ociStore) scopes(rpath string) []string {
	action := "pull,push"
	if s.opts.ReadOnly {
		action = "pull"
	}
	if rpath == "" {
		return []string{"registry:catalog:*"}
	}
	return []string{"repository:" + rpath + ":" + action}
}

// newTransport makes an authenticated transport for scopes (pinging the
// registry first).
func (s *ociStore) newTransport(ctx context.Context, scopes []string) (http.RoundTripper, error) {
	t, err := transport.NewWithContext(once(ctx), s.reg, s.auth, s.rt, scopes)
	if err != nil {
		// A token service that refuses the credentials answers here.
		var te *transport.Error
		if errors.As(err, &te) {
			if hint := authHint(te.StatusCode, s.reg.RegistryStr()); hint != "" {
				return nil, fmt.Errorf("connect to %s: %w: %s (%w)", s.reg.RegistryStr(), ErrUnauthorized, hint, err)
			}
		}
		return nil, s.connectError(ctx, err)
	}
	return t, nil
}

// connectError is a failure to reach the registry at all: it wraps
// store.ErrUnreachable unless ctx ended it.
func (s *ociStore) connectError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("connect to %s: %w", s.reg.RegistryStr(), err)
	}
	return fmt.Errorf("connect to %s: %w: %w", s.reg.RegistryStr(), store.ErrUnreachable, err)
}

// seen records that rpath holds digest, for later mounts.
func (s *ociStore) seen(rpath, digest string) {
	s.mu.Lock()
	s.seenIn[digest] = rpath
	s.mu.Unlock()
}

// mountSource returns a repository other than rpath known to hold digest.
func (s *ociStore) mountSource(rpath, digest string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if from := s.seenIn[digest]; from != rpath {
		return from
	}
	return ""
}

var _ store.BlobDeleter = (*Store)(nil)

// Blobs implements store.BlobDeleter: the blobs repo's tagged manifests
// refer to, which is all the registry's API can find.
func (s *Store) Blobs(ctx context.Context, repo string) ([]store.BlobInfo, error) {
	return s.o.Blobs(ctx, repo)
}

// DeleteBlob implements store.BlobDeleter through the registry's DELETE
// (ErrDeleteDisabled when it does not allow deletes).
func (s *Store) DeleteBlob(ctx context.Context, repo, digest string) (int64, error) {
	return s.o.DeleteBlob(ctx, repo, digest)
}

// DeleteRepo implements store.BlobDeleter: an emptied repository's
// marker manifest deleted.
func (s *Store) DeleteRepo(ctx context.Context, repo string) error { return s.o.DeleteRepo(ctx, repo) }

// ExcludeReaders implements store.BlobDeleter: it does not wait, a
// registry has no reader lock.
func (s *Store) ExcludeReaders(ctx context.Context, waiting func()) (func() error, error) {
	return s.o.ExcludeReaders(ctx, waiting)
}

var _ store.PendingWriter = (*Store)(nil)

// BeginPending implements store.PendingWriter: a manifest tagged with
// the writer's name in PREFIX/airvsx-pending.
func (s *Store) BeginPending(ctx context.Context, name string, repos []string) error {
	return s.o.BeginPending(ctx, name, repos)
}

// EndPending implements store.PendingWriter.
func (s *Store) EndPending(ctx context.Context, name string) error { return s.o.EndPending(ctx, name) }

// Pending implements store.PendingWriter.
func (s *Store) Pending(ctx context.Context) ([]store.PendingRecord, error) { return s.o.Pending(ctx) }
