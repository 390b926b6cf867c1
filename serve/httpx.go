package serve

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Limits of the HTTP server.
const (
	// maxHeaderBytes bounds a request's header.
	maxHeaderBytes = 16 << 10
	// maxQueryBody bounds the body of a query POST.
	maxQueryBody = 64 << 10
	// maxURLBytes bounds a request's URL.
	maxURLBytes = 4 << 10
	// gzipMin is the smallest JSON answer worth compressing.
	gzipMin = 1 << 10
)

// ServeOptions configure Serve.
type ServeOptions struct {
	// Addr is the TCP address to listen on. Default "127.0.0.1:8080".
	Addr string
	// CertFile and KeyFile are a PEM certificate (chain) and its key:
	// with both, Serve speaks TLS only. Default none: plain HTTP.
	CertFile, KeyFile string
	// Ready, when set, is called with the address listened on (the port
	// chosen when Addr's is 0) once the listener is open.
	Ready func(addr string)
	// ReadHeaderTimeout bounds how long a client may take to send a
	// request's header. Default 5s.
	ReadHeaderTimeout time.Duration
	// Logger receives the server's own errors (a failed TLS handshake,
	// say) at debug level. Default nil: discarded.
	Logger *slog.Logger
	// ShutdownTimeout bounds the graceful shutdown once ctx ends: the
	// requests in flight get that long to finish. Default 10s.
	ShutdownTimeout time.Duration
}

// Serve listens on opts.Addr and answers with h until ctx ends, then
// shuts down gracefully: no new connection is accepted and the requests
// in flight get ShutdownTimeout to finish. Every phase has a timeout, so
// a slow client holds a connection for a bounded time.
func Serve(ctx context.Context, h http.Handler, opts ServeOptions) error {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:8080"
	}
	if opts.ReadHeaderTimeout == 0 {
		opts.ReadHeaderTimeout = 5 * time.Second
	}
	if opts.ShutdownTimeout == 0 {
		opts.ShutdownTimeout = 10 * time.Second
	}
	if (opts.CertFile == "") != (opts.KeyFile == "") {
		return errors.New("serve: TLS needs both a certificate and its key")
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: opts.ReadHeaderTimeout,
		ReadTimeout:       30 * time.Second,
		// A package of 200 MB at 1 MB/s: the bound for one answer.
		WriteTimeout:   10 * time.Minute,
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: maxHeaderBytes,
		ErrorLog:       slog.NewLogLogger(logHandler(opts.Logger), slog.LevelDebug),
		BaseContext:    func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	if opts.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(opts.CertFile, opts.KeyFile)
		if err != nil {
			return fmt.Errorf("serve: TLS certificate %s and key %s: %w", opts.CertFile, opts.KeyFile, err)
		}
		srv.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("serve: listen on %s: %w", opts.Addr, err)
	}
	if opts.Ready != nil {
		opts.Ready(ln.Addr().String())
	}
	done := make(chan error, 1)
	go func() {
		if srv.TLSConfig != nil {
			done <- srv.ServeTLS(ln, "", "")
		} else {
			done <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), opts.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	return nil
}

// logHandler is l's handler, or one that discards.
func logHandler(l *slog.Logger) slog.Handler {
	if l == nil {
		return slog.DiscardHandler
	}
	return l.Handler()
}

// wrap adds what every request goes through: the request log, a bound
// on the URL, headers that keep browsers from sniffing, and recovery.
func (s *Server) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		lw := &logWriter{ResponseWriter: w, status: http.StatusOK}
		defer func() {
			if s.opts.AccessLog != nil {
				s.logRequest(r, lw, start)
			}
		}()
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if len(r.RequestURI) > maxURLBytes {
			httpError(lw, http.StatusRequestURITooLong, "the URL is longer than %d bytes", maxURLBytes)
			return
		}
		if !cleanPath(r.URL.EscapedPath()) {
			httpError(lw, http.StatusBadRequest, "the path has a dot segment, a backslash or a control character")
			return
		}
		if r.URL.Path != "/healthz" {
			sn := s.acquire()
			if sn == nil {
				httpError(lw, http.StatusServiceUnavailable, "the server is closed")
				return
			}
			exp, ok := sn.expired(s.opts.Now())
			sn.release()
			if ok {
				httpError(lw, http.StatusServiceUnavailable, "the registry's signed metadata expired at %s: nothing is served until a renewed registry (a sync, or a copy of a newer one) is in place", exp.Format(time.RFC3339))
				return
			}
		}
		h.ServeHTTP(lw, r)
	})
}

// cleanPath reports whether an escaped request path, decoded as often
// as it takes to stop changing, has no "." or ".." segment, backslash,
// NUL or control character: such a path is refused before any route
// sees it, in every encoding.
func cleanPath(escaped string) bool {
	p := escaped
	for range 4 {
		u, err := url.PathUnescape(p)
		if err != nil {
			return false
		}
		if u == p {
			break
		}
		p = u
	}
	if strings.ContainsAny(p, "\\\x00") {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "." || seg == ".." {
			return false
		}
		for i := 0; i < len(seg); i++ {
			if seg[i] < 0x20 || seg[i] == 0x7f {
				return false
			}
		}
	}
	return true
}

// logRequest writes r's line in the Combined Log Format.
func (s *Server) logRequest(r *http.Request, lw *logWriter, start time.Time) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	line := fmt.Sprintf("%s - - [%s] %s %d %d %s %s %dus\n", host, start.Format("02/Jan/2006:15:04:05 -0700"),
		strconv.Quote(r.Method+" "+r.RequestURI+" "+r.Proto), lw.status, lw.bytes,
		strconv.Quote(r.Referer()), strconv.Quote(r.UserAgent()), time.Since(start).Microseconds())
	s.logMu.Lock()
	io.WriteString(s.opts.AccessLog, line)
	s.logMu.Unlock()
}

// logWriter records what the log line says of an answer.
type logWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
	wrote  bool
}

func (l *logWriter) WriteHeader(code int) {
	if !l.wrote {
		l.status, l.wrote = code, true
	}
	l.ResponseWriter.WriteHeader(code)
}

func (l *logWriter) Write(p []byte) (int, error) {
	l.wrote = true
	n, err := l.ResponseWriter.Write(p)
	l.bytes += int64(n)
	return n, err
}

// ReadFrom keeps sendfile for file answers.
func (l *logWriter) ReadFrom(r io.Reader) (int64, error) {
	l.wrote = true
	n, err := io.Copy(l.ResponseWriter, r)
	l.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (l *logWriter) Unwrap() http.ResponseWriter { return l.ResponseWriter }

// httpError answers code with a one-line plain text message.
func httpError(w http.ResponseWriter, code int, format string, args ...any) {
	h := w.Header()
	h.Del("Content-Encoding")
	h.Del("ETag")
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	fmt.Fprintf(w, format+"\n", args...)
}

// jsonError answers code with Open VSX's error object.
func jsonError(w http.ResponseWriter, r *http.Request, code int, format string, args ...any) {
	w.Header().Set("Cache-Control", "no-store")
	writeJSONStatus(w, r, code, struct {
		Error string `json:"error"`
	}{fmt.Sprintf(format, args...)})
}

// writeJSON answers 200 with v as JSON.
func writeJSON(w http.ResponseWriter, r *http.Request, v any) {
	writeJSONStatus(w, r, http.StatusOK, v)
}

func writeJSONStatus(w http.ResponseWriter, r *http.Request, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		httpError(w, http.StatusInternalServerError, "encode the answer: %v", err)
		return
	}
	writeJSONBytes(w, r, code, b)
}

var gzipPool = sync.Pool{New: func() any {
	z, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
	return z
}}

// writeJSONBytes answers code with the JSON b, gzipped when the client
// takes gzip and b is worth it.
func writeJSONBytes(w http.ResponseWriter, r *http.Request, code int, b []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Add("Vary", "Accept-Encoding")
	if len(b) < gzipMin || !acceptsGzip(r) {
		h.Set("Content-Length", strconv.Itoa(len(b)))
		w.WriteHeader(code)
		w.Write(b)
		return
	}
	var buf bytes.Buffer
	z := gzipPool.Get().(*gzip.Writer)
	z.Reset(&buf)
	z.Write(b)
	z.Close()
	gzipPool.Put(z)
	h.Set("Content-Encoding", "gzip")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

// writeAnswer answers 200 with a cached JSON answer, gzipped when the
// client takes gzip and it is worth it.
func writeAnswer(w http.ResponseWriter, r *http.Request, a *answer) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Add("Vary", "Accept-Encoding")
	b := a.json
	if len(b) >= gzipMin && acceptsGzip(r) {
		b = a.gzipped()
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	w.Write(b)
}

// acceptsGzip reports whether r's Accept-Encoding takes gzip.
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(v, ",") {
			name, q, _ := strings.Cut(strings.TrimSpace(part), ";")
			if strings.EqualFold(strings.TrimSpace(name), "gzip") && strings.ReplaceAll(strings.TrimSpace(q), " ", "") != "q=0" {
				return true
			}
		}
	}
	return false
}
