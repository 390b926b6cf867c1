package mirror

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/mirror/openvsx"
	"github.com/airvsx/airvsx/testkit/openvsxtest"
)

// TestDigestFileRestarts: a download that breaks midway and is retried
// leaves the file, its sha256 and its signature check covering exactly the
// bytes of the successful attempt.
func TestDigestFileRestarts(t *testing.T) {
	const name = "airvsx-demo.night-theme-2.1.0.vsix"
	want := openvsxtest.ReadFixture(t, name)
	wantSum := index.SHA256Hex(want)
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sig := ed25519.Sign(priv, want)
	badSig := ed25519.Sign(priv, []byte("other bytes"))

	tests := []struct {
		name     string
		fault    openvsxtest.Fault
		times    int
		sig      []byte
		wantReqs int
		wantOK   bool
	}{
		{name: "clean", sig: sig, wantReqs: 1, wantOK: true},
		{name: "truncated midway once", fault: openvsxtest.Truncated, times: 1, sig: sig, wantReqs: 2, wantOK: true},
		{name: "truncated midway twice", fault: openvsxtest.Truncated, times: 2, sig: sig, wantReqs: 3, wantOK: true},
		{name: "reset", fault: openvsxtest.Reset, times: 2, sig: sig, wantReqs: 3, wantOK: true},
		{name: "503", fault: openvsxtest.Unavailable, times: 1, sig: sig, wantReqs: 2, wantOK: true},
		{name: "truncated, wrong signature", fault: openvsxtest.Truncated, times: 1, sig: badSig, wantReqs: 2, wantOK: false},
		{name: "truncated, unsigned", fault: openvsxtest.Truncated, times: 1, sig: nil, wantReqs: 2, wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := openvsxtest.New(t, openvsxtest.Options{})
			s.Fault("/cdn/", tt.fault, tt.times)
			c, err := openvsx.NewClient(openvsx.ClientOptions{BaseURL: s.URL, Rate: 1000, Burst: 1000, MaxRetries: 3, RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Create(filepath.Join(t.TempDir(), "dl"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			df := newDigestFile(f, pub, tt.sig)
			n, err := c.Download(t.Context(), s.URL+"/api/airvsx-demo/night-theme/2.1.0/file/"+name, 1<<20, df)
			if err != nil {
				t.Fatalf("Download: %v", err)
			}
			if got := s.Count("/cdn/"); got != tt.wantReqs {
				t.Errorf("%d requests to /cdn/; want %d", got, tt.wantReqs)
			}
			got, err := os.ReadFile(f.Name())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) || n != int64(len(want)) || df.size() != n {
				t.Errorf("file %d bytes, Download %d, digestFile %d; want the fixture's %d", len(got), n, df.size(), len(want))
			}
			if df.sum() != wantSum {
				t.Errorf("sum = %s; want %s", df.sum(), wantSum)
			}
			if df.signatureOK() != tt.wantOK {
				t.Errorf("signatureOK = %v; want %v", df.signatureOK(), tt.wantOK)
			}
		})
	}
}

// TestDigestFileRefusesResume: only a restart from the first byte is
// allowed.
func TestDigestFileRefusesResume(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "dl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	df := newDigestFile(f, nil, nil)
	io.WriteString(df, "some bytes")
	if _, err := df.Seek(4, io.SeekStart); err == nil {
		t.Error("Seek(4) succeeded; want an error")
	}
	if err := df.Truncate(4); err == nil {
		t.Error("Truncate(4) succeeded; want an error")
	}
	if err := df.Truncate(0); err != nil {
		t.Fatal(err)
	}
	io.WriteString(df, "abc")
	if df.sum() != index.SHA256Hex([]byte("abc")) || df.size() != 3 {
		t.Errorf("after a restart: sum %s size %d; want those of %q", df.sum(), df.size(), "abc")
	}
	if got, _ := os.ReadFile(f.Name()); string(got) != "abc" {
		t.Errorf("file = %q; want %q", got, "abc")
	}
}
