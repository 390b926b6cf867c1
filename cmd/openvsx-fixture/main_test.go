package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestCheckLoopback(t *testing.T) {
	tests := []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:0", true},
		{"127.0.0.2:8080", true},
		{"[::1]:0", true},
		{"localhost:0", true},
		{"0.0.0.0:0", false},
		{":0", false},
		{"[::]:0", false},
		{"192.168.1.10:80", false},
		{"example.com:80", false},
		{"127.0.0.1", false},
	}
	for _, tt := range tests {
		if err := checkLoopback(tt.addr); (err == nil) != tt.ok {
			t.Errorf("checkLoopback(%q) = %v; want ok %v", tt.addr, err, tt.ok)
		}
	}
}

// TestRun starts the server, reads the URL from the first stdout line,
// fetches one extension and stops it by cancelling the context.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-listen", "127.0.0.1:0"}, pw, io.Discard); pw.Close() }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSpace(line)
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("first line %q; want http://127.0.0.1:PORT", line)
	}
	resp, err := http.Get(base + "/api/airvsx-demo/hello-command")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET: %d", resp.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
	if err := run(t.Context(), []string{"-listen", "0.0.0.0:0"}, io.Discard, io.Discard); err == nil {
		t.Error("run -listen 0.0.0.0:0: no error")
	}
}
