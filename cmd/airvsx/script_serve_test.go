package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdFreePort sets VAR to a loopback HOST:PORT nothing listens on, for
// an airvsx serve started in the background:
//
//	freeport VAR
func cmdFreePort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: freeport VAR")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ts.Fatalf("%v", err)
	}
	ts.Setenv(args[0], l.Addr().String())
	l.Close()
}

// cmdHTTPGet fetches URL into FILE and checks the status (default 200),
// retrying for 10 s while nothing listens yet (a server starting in the
// background) and, with -until, while the body does not match REGEXP.
// The URL is sent as written (not cleaned):
//
//	httpget [-status CODE] [-until REGEXP] URL FILE
func cmdHTTPGet(ts *testscript.TestScript, neg bool, args []string) {
	want := http.StatusOK
	var until *regexp.Regexp
	for len(args) > 1 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-status":
			n, err := strconv.Atoi(args[1])
			if err != nil {
				ts.Fatalf("httpget: bad status %q", args[1])
			}
			want = n
		case "-until":
			until = regexp.MustCompile(args[1])
		default:
			ts.Fatalf("httpget: unknown flag %s", args[0])
		}
		args = args[2:]
	}
	if neg || len(args) != 2 {
		ts.Fatalf("usage: httpget [-status CODE] [-until REGEXP] URL FILE")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		b := httpGet(ts, args[0], want)
		if until == nil || until.Match(b) || time.Now().After(deadline) {
			if err := os.WriteFile(ts.MkAbs(args[1]), b, 0o644); err != nil {
				ts.Fatalf("%v", err)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// httpGet is one httpget: the body, the status checked.
func httpGet(ts *testscript.TestScript, u string, want int) []byte {
	args := []string{u}
	req, err := http.NewRequest("GET", args[0], nil)
	if err != nil {
		ts.Fatalf("httpget: %v", err)
	}
	req.URL.Opaque = req.URL.RawPath
	if req.URL.Opaque == "" {
		req.URL.Opaque = req.URL.Path
	}
	var resp *http.Response
	for deadline := time.Now().Add(10 * time.Second); ; {
		resp, err = http.DefaultTransport.RoundTrip(req)
		var op *net.OpError
		if err == nil || !errors.As(err, &op) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		ts.Fatalf("httpget %s: %v", args[0], err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		ts.Fatalf("httpget %s: %v", args[0], err)
	}
	if resp.StatusCode != want {
		ts.Fatalf("httpget %s: %s; want %d\n%.300s", args[0], resp.Status, want, b)
	}
	return b
}

// cmdSHA256 sets VAR to the hex sha256 of FILE:
//
//	sha256 FILE VAR
func cmdSHA256(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sha256 FILE VAR")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	if err != nil {
		ts.Fatalf("%v", err)
	}
	sum := sha256.Sum256(b)
	ts.Setenv(args[1], hex.EncodeToString(sum[:]))
}
