package install_test

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/hostlaunch/install"
	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/testkit/filetest"
)

func TestDecodeStrict(t *testing.T) {
	opts := options(t)
	installOK(t, opts)
	good := installedJSON(t, opts.Dir)
	if _, err := install.Decode(bytes.NewReader(good)); err != nil {
		t.Fatalf("Decode(installed.json) = %v", err)
	}
	tests := []struct {
		name string
		edit func(string) string
		want string
	}{
		{"unknown field", func(s string) string { return strings.Replace(s, `"format": 1,`, `"format": 1, "extra": true,`, 1) }, "unknown field"},
		{"trailing data", func(s string) string { return s + "{}" }, "data after the JSON value"},
		{"format", func(s string) string { return strings.Replace(s, `"format": 1`, `"format": 2`, 1) }, "format: 2"},
		{"dir leaves the directory", func(s string) string { return strings.Replace(s, `"dir": "ok.x-1.0.0"`, `"dir": "../../etc"`, 1) }, `dir: "../../etc"; want "ok.x-1.0.0"`},
		{"tree hash", func(s string) string { return strings.Replace(s, `"treeHash": "sha256:`, `"treeHash": "sha256:0`, 1) }, "treeHash"},
		{"bad file path", func(s string) string { return strings.Replace(s, `"path": "README.md"`, `"path": "../README.md"`, 1) }, "files["},
		{"source kind", func(s string) string { return strings.Replace(s, `"kind": "local file"`, `"kind": "internet"`, 1) }, "source.kind"},
		{"disabled without reason", func(s string) string { return strings.Replace(s, `"enabled": true`, `"enabled": false`, 1) }, "a disabled extension needs a reason"},
		{"truncated", func(s string) string { return s[:len(s)/2] }, "unexpected EOF"},
		{"seal scheme", func(s string) string { return strings.Replace(s, `"seal": "hmac-sha256:`, `"seal": "hmac-md5:`, 1) }, `seal: "hmac-md5:`},
		{"short seal", func(s string) string { return strings.Replace(s, `"seal": "hmac-sha256:`, `"seal": "hmac-sha256:0`, 1) }, "is not hmac-sha256: and 64 lower-case hex digits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := tt.edit(string(good))
			if bad == string(good) {
				t.Fatal("the edit changed nothing")
			}
			if _, err := install.Decode(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Decode = %v; want an error saying %q", err, tt.want)
			}
			filetest.WriteFile(t, filepath.Join(opts.Dir, install.IndexFile), []byte(bad))
			if _, err := install.Load(t.Context(), opts.Dir, dirOpts(opts)); err == nil || !strings.Contains(err.Error(), "installed.json is damaged") {
				t.Errorf("Load of a damaged file = %v; want an error naming installed.json", err)
			}
		})
	}
	// The brokers' lists: only with their capability, canonical, sorted.
	spawn := []install.Grant{{Capability: index.Spawn, Rule: "capabilities[0] (ok.x)"}}
	network := []install.Grant{{Capability: index.Network, Rule: "capabilities[0] (ok.x)"}}
	for _, tt := range []struct {
		name         string
		caps         []install.Grant
		hosts, progs []string
		want         string
	}{
		{"valid", append(slices.Clone(network), spawn...), []string{"*.b.org", "api.a.com:8080"}, []string{"/bin/sh", "/usr/bin/git"}, ""},
		{"programs without spawn", network, nil, []string{"/usr/bin/git"}, "programs: listed without the spawn capability"},
		{"hosts without network", spawn, []string{"a.com"}, nil, "allowedHosts: listed without the network capability"},
		{"relative program", spawn, nil, []string{"git"}, `programs[0]: "git" is not in canonical form`},
		{"upper-case host", network, []string{"A.com"}, nil, `allowedHosts[0]: "A.com" is not in canonical form`},
		{"host with scheme", network, []string{"https://a.com"}, nil, `allowedHosts[0]: "https://a.com" is not in canonical form`},
		{"unsorted", spawn, nil, []string{"/usr/bin/git", "/bin/sh"}, `programs[1]: "/bin/sh" is not sorted or repeated`},
	} {
		t.Run("lists/"+tt.name, func(t *testing.T) {
			x, _ := install.Decode(bytes.NewReader(good))
			x.Extensions[0].Capabilities, x.Extensions[0].AllowedHosts, x.Extensions[0].Programs = tt.caps, tt.hosts, tt.progs
			b, err := x.Encode()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Encode = %v", err)
				}
				y, err := install.Decode(bytes.NewReader(b))
				if err != nil || !slices.Equal(y.Extensions[0].Programs, tt.progs) || !slices.Equal(y.Extensions[0].AllowedHosts, tt.hosts) {
					t.Errorf("Decode(Encode()) = %v, %v", y, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Encode = %v; want an error saying %q", err, tt.want)
			}
		})
	}

	// A second record for the same ID.
	x, _ := install.Decode(bytes.NewReader(good))
	x.Extensions = append(x.Extensions, x.Extensions[0])
	if _, err := x.Encode(); err == nil || !strings.Contains(err.Error(), "a second record") {
		t.Errorf("Encode with a duplicate = %v", err)
	}
}

// FuzzDecode: installed.json is on disk and could be tampered with.
// Whatever Decode accepts re-encodes to bytes that decode to the same
// records, and every record's folder is a single local name. And Load
// of it leaves grants only on a record an install sealed, with the very
// grants sealed: no change to installed.json's bytes forges one.
func FuzzDecode(f *testing.F) {
	opts := install.Options{Dir: filepath.Join(f.TempDir(), "ext"), StateDir: filepath.Join(f.TempDir(), "state"), Platform: "linux-x64"}
	installGranted(f, opts)
	sealed, err := install.Decode(bytes.NewReader(installedJSON(f, opts.Dir)))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(installedJSON(f, opts.Dir))
	{
		x, err := install.Decode(bytes.NewReader(installedJSON(f, opts.Dir)))
		if err != nil {
			f.Fatal(err)
		}
		r := x.Find(okID)
		r.Capabilities = []install.Grant{{Capability: index.Network, Rule: "r"}, {Capability: index.Spawn, Rule: "r"}}
		r.AllowedHosts, r.Programs = []string{"*.a.org", "[::1]:80"}, []string{"/usr/bin/git"}
		b, err := x.Encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"format":1,"extensions":[]}`))
	f.Add([]byte(`{"format":1,"extensions":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := install.Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, r := range x.Extensions {
			if r.Dir == "" || strings.ContainsAny(r.Dir, `/\`) || r.Dir == "." || r.Dir == ".." || !filepath.IsLocal(r.Dir) {
				t.Fatalf("accepted folder %q", r.Dir)
			}
		}
		enc, err := x.Encode()
		if err != nil {
			t.Fatalf("accepted but does not encode: %v", err)
		}
		y, err := install.Decode(bytes.NewReader(enc))
		if err != nil {
			t.Fatalf("re-encoded does not decode: %v", err)
		}
		enc2, _ := y.Encode()
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("round trip changed:\n%s\n%s", enc, enc2)
		}
		dir := t.TempDir()
		filetest.WriteFile(t, filepath.Join(dir, install.IndexFile), data)
		l, err := install.Load(t.Context(), dir, install.DirOptions{StateDir: opts.StateDir})
		if err != nil {
			t.Fatalf("Load of what Decode accepts: %v", err)
		}
		for _, r := range l.Extensions {
			if len(r.Capabilities)+len(r.AllowedHosts)+len(r.Programs) == 0 {
				continue
			}
			ok := slices.ContainsFunc(sealed.Extensions, func(s install.Record) bool {
				return s.Seal == r.Seal && cmp.Equal(s.Capabilities, r.Capabilities) &&
					slices.Equal(s.AllowedHosts, r.AllowedHosts) && slices.Equal(s.Programs, r.Programs)
			})
			if !ok {
				t.Fatalf("%s keeps grants %v, hosts %v, programs %v no install sealed", r.String(), r.Capabilities, r.AllowedHosts, r.Programs)
			}
		}
	})
}
