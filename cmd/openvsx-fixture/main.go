// Command openvsx-fixture serves the fixture Open VSX server
// (testkit/openvsxtest) on loopback, for the offline demo and manual tries:
//
//	go run ./cmd/openvsx-fixture -listen 127.0.0.1:0 -fixtures testdata/vsix
//
// The first line on stdout is the base URL (http://127.0.0.1:PORT); it
// serves until SIGINT or SIGTERM. Requests the fixtures have no answer for
// are logged on stderr and answered 404. It refuses to listen on anything
// but a loopback address.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/airvsx/airvsx/testkit/openvsxtest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "openvsx-fixture:", err)
		os.Exit(2)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("openvsx-fixture", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:0", "loopback `address` to listen on")
	dir := fs.String("fixtures", "", "`directory` of .vsix fixtures (default: the repository's testdata/vsix)")
	latency := fs.Duration("latency", 0, "latency added to every response")
	legacy := fs.Bool("legacy", false, "serve the pre-2026 ExtensionJson field set")
	controlFile := fs.String("control", "", "serve this `file` at "+openvsxtest.ControlPath+" (read again on every request), the extension control list")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if err := checkLoopback(*listen); err != nil {
		return err
	}
	if *dir == "" {
		*dir = openvsxtest.DefaultDir()
	}
	fx, err := openvsxtest.LoadFixtures(*dir)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	h, err := openvsxtest.NewHandler(fx, openvsxtest.Options{Latency: *latency, Legacy: *legacy, ControlFile: *controlFile}, func(r *http.Request) {
		log.Warn("no fixture", "method", r.Method, "url", r.URL.RequestURI())
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "http://%s\n", ln.Addr())
	log.Info("serving", "fixtures", *dir, "versions", len(fx), "url", "http://"+ln.Addr().String())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// checkLoopback refuses any listen address whose host is not a loopback IP
// or "localhost".
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-listen %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-listen %q: not a loopback address (want 127.0.0.1:PORT or [::1]:PORT)", addr)
	}
	return nil
}
