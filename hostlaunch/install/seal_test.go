package install_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/hostlaunch/install"
	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/vsix/vsixtest"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/filetest"
)

// capPolicy grants cap.x spawn of git and network to one host.
const capPolicy = `version: 1
extensions: [{id: cap.x}]
capabilities:
  - id: cap.x
    grant: [spawn, network]
    programs: [/usr/bin/git]
    hosts: [api.a.com]
`

var (
	capID = index.ID{Namespace: "cap", Name: "x"}
	okID  = index.ID{Namespace: "ok", Name: "x"}
)

// installGranted installs cap.x, granted spawn and network by capPolicy,
// and the plain ok.x into opts.Dir.
func installGranted(t testing.TB, opts install.Options) {
	t.Helper()
	opts.Policy = demoreg.ParsePolicy(t, capPolicy)
	file := filepath.Join(t.TempDir(), "cap.x-1.0.0.vsix")
	b, err := vsixtest.Bytes(vsixtest.Minimal(pkgFiles("cap", "x", "1.0.0", map[string]any{"capabilities": map[string]bool{"spawn": true, "network": true}})))
	if err != nil {
		t.Fatal(err)
	}
	filetest.WriteFile(t, file, b)
	if _, err := install.FromFile(t.Context(), file, opts); err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(t.TempDir(), "ok.x-1.0.0.vsix")
	filetest.WriteFile(t, file, mustPkg(t))
	if _, err := install.FromFile(t.Context(), file, opts); err != nil {
		t.Fatal(err)
	}
}

// granted are cap.x's grants as capPolicy gives them.
var granted = struct {
	caps          []install.Grant
	hosts, progrs []string
}{
	[]install.Grant{{Capability: index.Network, Rule: "capabilities[0] (cap.x)"}, {Capability: index.Spawn, Rule: "capabilities[0] (cap.x)"}},
	[]string{"api.a.com"}, []string{"/usr/bin/git"},
}

// checkGranted fails the test unless r is enabled with cap.x's grants.
func checkGranted(t *testing.T, r *install.Record) {
	t.Helper()
	if r == nil || !r.Enabled || !cmp.Equal(r.Capabilities, granted.caps) || !slices.Equal(r.AllowedHosts, granted.hosts) || !slices.Equal(r.Programs, granted.progrs) {
		t.Errorf("record %+v; want enabled with %v, hosts %v, programs %v", r, granted.caps, granted.hosts, granted.progrs)
	}
}

// checkUntrusted fails the test unless r is disabled without grants,
// its reason saying why (want), and a warning names it.
func checkUntrusted(t *testing.T, l *install.Loaded, id index.ID, want string) {
	t.Helper()
	r := l.Find(id)
	if r == nil {
		t.Fatalf("no record of %s", id)
	}
	if r.Enabled || len(r.Capabilities) != 0 || len(r.AllowedHosts) != 0 || len(r.Programs) != 0 {
		t.Errorf("%s: enabled %v, capabilities %v, hosts %v, programs %v; want disabled without grants", id, r.Enabled, r.Capabilities, r.AllowedHosts, r.Programs)
	}
	const says = "'s record of "
	if !strings.Contains(r.Reason, install.IndexFile+says+r.String()+" is not sealed by airvsx install on this machine") ||
		!strings.Contains(r.Reason, want) || !strings.HasSuffix(r.Reason, "its grants are not trusted; install it again") {
		t.Errorf("%s: reason %q; want one saying its record is not sealed: %s", id, r.Reason, want)
	}
	if !slices.ContainsFunc(l.Warnings, func(w string) bool {
		return strings.HasPrefix(w, r.String()+" disabled: ") && strings.Contains(w, want)
	}) {
		t.Errorf("%s: warnings %q name it not", id, l.Warnings)
	}
}

// forge rewrites installed.json of dir with edit applied to its records,
// keeping their seals (as something other than airvsx would).
func forge(t *testing.T, dir string, edit func(x *install.Index)) {
	t.Helper()
	x, err := install.Decode(bytes.NewReader(installedJSON(t, dir)))
	if err != nil {
		t.Fatal(err)
	}
	edit(x)
	b, err := x.Encode()
	if err != nil {
		t.Fatal(err)
	}
	filetest.WriteFile(t, filepath.Join(dir, install.IndexFile), b)
}

const (
	badSeal = "its seal does not match: changed by something else after airvsx wrote it, or copied from another machine"
	noSeal  = "it has no seal: written by an older airvsx, or added by something else"
)

// TestSealForged: records of installed.json changed or added by
// something other than airvsx (an extension that could write the file)
// are read disabled, without grants, with a warning; the records left
// alone keep theirs. A rewrite by Disable, MarkActivated or Uninstall,
// which seals every record, does not make the forged grants genuine.
func TestSealForged(t *testing.T) {
	python := []install.Grant{{Capability: index.Spawn, Rule: "capabilities[0] (ok.x)"}}
	tests := []struct {
		name string
		edit func(x *install.Index)
		id   index.ID // the record forged
		want string
	}{
		{"spawn python", func(x *install.Index) {
			r := x.Find(okID)
			r.Capabilities, r.Programs = python, []string{"/usr/bin/python3"}
		}, okID, badSeal},
		{"another program", func(x *install.Index) { x.Find(capID).Programs = []string{"/usr/bin/git", "/usr/bin/python3"} }, capID, badSeal},
		{"allowed hosts", func(x *install.Index) { x.Find(capID).AllowedHosts = []string{"evil.example"} }, capID, badSeal},
		{"seal removed", func(x *install.Index) { x.Find(capID).Seal = "" }, capID, noSeal},
		{"seal of another record", func(x *install.Index) {
			x.Find(okID).Seal = x.Find(capID).Seal
		}, okID, badSeal},
		{"new record", func(x *install.Index) {
			r := *x.Find(okID)
			r.ID, r.Dir = index.ID{Namespace: "evil", Name: "x"}, "evil.x-1.0.0"
			r.Capabilities, r.Programs, r.Seal = python, []string{"/usr/bin/python3"}, ""
			x.Extensions = append(x.Extensions, r)
		}, index.ID{Namespace: "evil", Name: "x"}, noSeal},
		{"new record with a copied seal", func(x *install.Index) {
			r := *x.Find(capID)
			r.ID, r.Dir = index.ID{Namespace: "evil", Name: "x"}, "evil.x-1.0.0"
			x.Extensions = append(x.Extensions, r)
		}, index.ID{Namespace: "evil", Name: "x"}, badSeal},
	}
	for _, tt := range tests {
		for _, rewrite := range []string{"none", "Disable", "MarkActivated", "Uninstall"} {
			t.Run(tt.name+"/"+rewrite, func(t *testing.T) {
				opts := options(t)
				installGranted(t, opts)
				// A new record's folder is in place, so that only its
				// seal can disable it.
				filetest.CopyDir(t, filepath.Join(opts.Dir, "ok.x-1.0.0"), filepath.Join(opts.Dir, "evil.x-1.0.0"))
				forge(t, opts.Dir, tt.edit)
				// The other of cap.x and ok.x is the bystander.
				other := capID
				if tt.id == capID {
					other = okID
				}
				ctx := t.Context()
				switch rewrite {
				case "Disable":
					if err := install.Disable(ctx, opts.Dir, other, "crashed", dirOpts(opts)); err != nil {
						t.Fatal(err)
					}
				case "MarkActivated":
					if err := install.MarkActivated(ctx, opts.Dir, []index.ID{tt.id, other}, testNow, dirOpts(opts)); err != nil {
						t.Fatal(err)
					}
				case "Uninstall":
					if _, err := install.Uninstall(ctx, opts.Dir, other, false, dirOpts(opts)); err != nil {
						t.Fatal(err)
					}
				}
				l := loaded(t, opts)
				if rewrite == "none" {
					checkUntrusted(t, l, tt.id, tt.want)
				} else {
					// Rewritten (and sealed) disabled, without grants,
					// with the reason first given.
					r := l.Find(tt.id)
					if r == nil || r.Enabled || len(r.Capabilities)+len(r.AllowedHosts)+len(r.Programs) != 0 || !strings.Contains(r.Reason, tt.want) {
						t.Errorf("after %s: %+v; want %s disabled without grants, saying %q", rewrite, r, tt.id, tt.want)
					}
					x, err := install.Decode(bytes.NewReader(installedJSON(t, opts.Dir)))
					if err != nil {
						t.Fatal(err)
					}
					if r := x.Find(tt.id); r.Enabled || len(r.Capabilities)+len(r.AllowedHosts)+len(r.Programs) != 0 {
						t.Errorf("after %s installed.json holds %+v", rewrite, r)
					}
				}
				switch rewrite {
				case "none", "MarkActivated":
					if other == capID {
						checkGranted(t, l.Find(capID))
					} else if r := l.Find(okID); !r.Enabled {
						t.Errorf("ok.x disabled: %s", r.Reason)
					}
				case "Disable":
					if r := l.Find(other); r.Enabled || r.Reason != "crashed" {
						t.Errorf("after Disable %s: enabled %v, reason %q", other, r.Enabled, r.Reason)
					}
				case "Uninstall":
					if l.Find(other) != nil {
						t.Errorf("%s still installed", other)
					}
				}
			})
		}
	}
}

// TestSealEnabledFlipped: an extension Disable disabled, enabled again
// by hand, stays disabled, without grants; installing it again enables
// it with its grants.
func TestSealEnabledFlipped(t *testing.T) {
	opts := options(t)
	installGranted(t, opts)
	if err := install.Disable(t.Context(), opts.Dir, capID, "its activation crashed the extension host twice in a row", dirOpts(opts)); err != nil {
		t.Fatal(err)
	}
	forge(t, opts.Dir, func(x *install.Index) {
		r := x.Find(capID)
		r.Enabled, r.Reason = true, ""
	})
	checkUntrusted(t, loaded(t, opts), capID, badSeal)
	installGranted(t, opts)
	l := loaded(t, opts)
	checkGranted(t, l.Find(capID))
	if len(l.Warnings) != 0 {
		t.Errorf("warnings after installing again: %q", l.Warnings)
	}
}

// TestSealOtherKey: a directory sealed under another key (another
// machine's, or another user's) is not trusted; an install there seals
// what it installs under this key, and leaves the rest untrusted.
func TestSealOtherKey(t *testing.T) {
	opts := options(t)
	installGranted(t, opts)
	here := options(t)
	installOK(t, here) // makes here's key
	here.Dir = opts.Dir
	l := loaded(t, here)
	checkUntrusted(t, l, capID, badSeal)
	checkUntrusted(t, l, okID, badSeal)
	installOK(t, here)
	l = loaded(t, here)
	if r := l.Find(okID); !r.Enabled {
		t.Errorf("ok.x installed again: disabled: %s", r.Reason)
	}
	if r := l.Find(capID); r.Enabled || len(r.Capabilities) != 0 || !strings.Contains(r.Reason, badSeal) {
		t.Errorf("cap.x after an install of ok.x: %+v; want it still disabled without grants", r)
	}
	if len(l.Warnings) != 0 {
		t.Errorf("warnings: %q; want none (cap.x's record is sealed, disabled, by the install)", l.Warnings)
	}
}

// TestSealNoKey: without a seal key no record is trusted, and reading
// makes none.
func TestSealNoKey(t *testing.T) {
	opts := options(t)
	installGranted(t, opts)
	if err := os.Remove(filepath.Join(opts.StateDir, install.SealKeyFile)); err != nil {
		t.Fatal(err)
	}
	for _, stateDir := range []string{opts.StateDir, filepath.Join(t.TempDir(), "missing")} {
		l, err := install.Load(t.Context(), opts.Dir, install.DirOptions{StateDir: stateDir})
		if err != nil {
			t.Fatal(err)
		}
		key := filepath.Join(stateDir, install.SealKeyFile)
		for _, id := range []index.ID{capID, okID} {
			checkUntrusted(t, l, id, "no seal key at "+key)
		}
		if _, err := os.Lstat(key); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Load made %s: %v", key, err)
		}
	}
	// The default state directory, when no StateDir is given.
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	l, err := install.Load(t.Context(), opts.Dir, install.DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkUntrusted(t, l, capID, "no seal key at "+filepath.Join(os.Getenv("XDG_STATE_HOME"), "airvsx", install.SealKeyFile))
}

// TestSealKey: the first write makes the key, 32 bytes, 0600, in a
// state directory made 0700; every record written is sealed; a damaged
// key is an error naming it, for readers and writers.
func TestSealKey(t *testing.T) {
	opts := options(t)
	installGranted(t, opts)
	key := filepath.Join(opts.StateDir, install.SealKeyFile)
	fi, err := os.Stat(key)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != 32 || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: %d bytes, mode %v; want 32, 0600", key, fi.Size(), fi.Mode().Perm())
	}
	if fi, err := os.Stat(opts.StateDir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("state directory: %v, %v; want mode 0700", fi.Mode().Perm(), err)
	}
	x, err := install.Decode(bytes.NewReader(installedJSON(t, opts.Dir)))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range x.Extensions {
		if !strings.HasPrefix(r.Seal, install.SealScheme) {
			t.Errorf("%s: seal %q", r.String(), r.Seal)
		}
	}
	// Round trip: all enabled, with their grants, no warning.
	l := loaded(t, opts)
	checkGranted(t, l.Find(capID))
	if r := l.Find(okID); !r.Enabled || len(l.Warnings) != 0 {
		t.Errorf("ok.x: %+v, warnings %q", r, l.Warnings)
	}
	if err := install.MarkActivated(t.Context(), opts.Dir, []index.ID{capID}, time.Now(), dirOpts(opts)); err != nil {
		t.Fatal(err)
	}
	checkGranted(t, loaded(t, opts).Find(capID))

	filetest.WriteFile(t, key, []byte("short"))
	if _, err := install.Load(t.Context(), opts.Dir, dirOpts(opts)); err == nil || !strings.Contains(err.Error(), key+": 5 bytes; a seal key has 32") {
		t.Errorf("Load with a damaged key = %v; want an error naming it", err)
	}
	if _, err := install.FromFile(t.Context(), writePkg(t, "ok", "x", "1.0.0", nil, nil), opts); err == nil || !strings.Contains(err.Error(), key) {
		t.Errorf("install with a damaged key = %v; want an error naming it", err)
	}
	if got := filetest.ReadFile(t, key); string(got) != "short" {
		t.Errorf("the damaged key was replaced")
	}
}
