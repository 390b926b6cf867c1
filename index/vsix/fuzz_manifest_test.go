package vsix

import (
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// FuzzParseManifest checks that ParseManifest never panics and that an
// accepted manifest survives parse ⇒ json.Marshal ⇒ parse: an equal
// *Manifest and the same error problems.
func FuzzParseManifest(f *testing.F) {
	f.Add(manifestBytes(f, nil))
	f.Add(manifestBytes(f, func(m map[string]any) {
		m["activationEvents"] = []any{"*", "onLanguage:go", "onTeleport"}
		m["capabilities"] = map[string]any{"network": true, "spawn": "yes", "camera": 1, "untrustedWorkspaces": map[string]any{"supported": "limited"}}
		m["contributes"] = map[string]any{
			"commands":  map[string]any{"command": "a.b", "title": map[string]any{"value": "T"}},
			"languages": []any{map[string]any{"id": "x", "configuration": "./c.json"}, 3},
			"views":     map[string]any{"explorer": []any{map[string]any{"id": "v"}}},
			"terminal":  map[string]any{"profiles": []any{map[string]any{"id": "t"}}},
			"mystery":   nil,
		}
		m["extensionKind"] = "ui"
		m["repository"] = map[string]any{"type": "git", "url": "https://x"}
		m["extensionDependencies"] = []any{"a.b", "bad", 7}
	}))
	f.Add([]byte("\xef\xbb\xbf" + `{"publisher":"p","name":"n","version":"1.0.0","engines":{"vscode":"*"}}`))
	f.Add([]byte(`{"name":"a","name":5,"name":"b","engines":{"vscode":"^1.80.0-insider","vscode":1}}`))
	f.Add([]byte(`{"version":1e999,"x":-0.0000000000000000000001e-400,"y":123456789012345678901234567890}`))
	f.Add([]byte(`{"publisher":["p"],"main":{},"browser":null,"contributes":"x","capabilities":[],"engines":[]}`))
	f.Add([]byte(`{"a":` + strings.Repeat("[", 500) + strings.Repeat("]", 500) + `}`))
	f.Add([]byte(`{"contributes":` + strings.Repeat(`{"a":`, 300) + "1" + strings.Repeat("}", 300) + `}`))
	f.Add([]byte(`{"displayName":"\u0000\u2028<script>&amp;","description":"\xff\xfe","\xffkey":1}`))
	f.Add([]byte(`{"Publisher":"P","NAME":"n","main":"../../x","activationEvents":[""," ",":","*:"]}`))
	f.Add([]byte(`{"capabilities":{"network":true,"network":"true"},"preview":true,"sponsor":{"url":1}}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Report
		m, err := ParseManifest(data, &r)
		if rejected(t, "ParseManifest", data, m, err) {
			return
		}
		a := m.Activation()
		if diff := cmp.Diff(a, m.Activation()); diff != "" {
			t.Fatalf("ParseManifest(%q).Activation() is not stable:\n%s", data, diff)
		}
		if !m.ExecutesCode() && slices.ContainsFunc(a, func(e ActivationEvent) bool { return e.Implicit }) {
			t.Fatalf("ParseManifest(%q).Activation() = %v: implicit events without code", data, a)
		}
		_ = m.DeclaredCapabilities()
		for _, p := range r.Problems {
			if p.File != PackageJSONPath || p.Rule == "" {
				t.Fatalf("ParseManifest(%q): problem %v without file or rule", data, p)
			}
		}
		assertRoundTrip(t, data)
	})
}

// FuzzParseVSIXManifest checks that ParseVSIXManifest never panics and that
// an accepted manifest survives parse ⇒ xml.Marshal ⇒ parse.
func FuzzParseVSIXManifest(f *testing.F) {
	sample, err := os.ReadFile("testdata/extension.vsixmanifest")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sample)
	f.Add([]byte(vsixXML(goodIdentity+` TargetPlatform="web"`, `<DisplayName><![CDATA[a<b]]> &amp; &#xD;&#x9;c</DisplayName>`, `<Asset Type="x" Path="extension/a b" Addressable="TRUE"/>`)))
	f.Add([]byte(`<PackageManifest xmlns="` + VSIXNamespace + `"><Metadata><Identity Id="a"/></Metadata><Metadata><Identity Version="1"/><Properties><Property Id="p" Value="1"/></Properties></Metadata><Metadata><Properties><Property Id="p" Value="2"/></Properties></Metadata></PackageManifest>`))
	f.Add([]byte(`<x:PackageManifest xmlns:x="` + VSIXNamespace + `"><x:Metadata><x:Identity x:Id="a" Id="b" Version="1&#10;2"/></x:Metadata></x:PackageManifest>`))
	f.Add([]byte(`<PackageManifest xmlns="urn:other"><Metadata><Description>line1` + "\r\n" + `line2` + "\r" + `</Description></Metadata></PackageManifest>`))
	f.Add([]byte(`<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><PackageManifest>&e;</PackageManifest>`))
	f.Add([]byte("\xef\xbb\xbf<PackageManifest/>"))
	f.Add([]byte(`<PackageManifest>` + strings.Repeat("<a>", 300) + strings.Repeat("</a>", 300) + `</PackageManifest>`))
	f.Add([]byte(`<PackageManifest><Metadata><DisplayName>a<b>x</b>c</DisplayName></Metadata></PackageManifest>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Report
		v, err := ParseVSIXManifest(data, &r)
		if rejected(t, "ParseVSIXManifest", data, v, err) {
			return
		}
		_ = v.AssetPaths()
		_ = v.PreRelease()
		assertXMLRoundTrip(t, data)
	})
}

// rejected reports whether the parser called name rejected data (err is
// not nil), failing t if it returned a value v with the error.
func rejected[T any](t *testing.T, name string, data []byte, v *T, err error) bool {
	t.Helper()
	if err == nil {
		return false
	}
	if v != nil {
		t.Fatalf("%s(%q) = %v, %v; want nil with an error", name, data, v, err)
	}
	return true
}

// FuzzDetect checks that JavaScript scanning never panics, is
// deterministic, and only reports modules named in the source.
func FuzzDetect(f *testing.F) {
	for _, s := range []string{
		`require("child_process")`, `import x from 'node:https'`, "import(`net`)", `export*from"tls"`,
		`__require("worker_threads");require("httpx")`, `require(` + "\n" + `'dgram')`, `"node:"`, `require("node:`,
		"\x7fELF", "MZ", `import"http2"from"dns"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		fsys := fstest.MapFS{
			"extension/a.js":  {Data: []byte(src)},
			"extension/a.bin": {Data: []byte(src)},
		}
		got, err := Detect(fsys, nil, DetectOptions{})
		if err != nil {
			t.Fatalf("Detect(%q) = %v", src, err)
		}
		again, _ := Detect(fsys, nil, DetectOptions{})
		if diff := cmp.Diff(got, again); diff != "" {
			t.Fatalf("Detect(%q) is not deterministic:\n%s", src, diff)
		}
		for _, fd := range got {
			spec := fd.Trigger
			if i := strings.IndexByte(spec, '"'); i >= 0 {
				spec = strings.Trim(spec[i:], `")`)
				if !strings.Contains(src, spec) {
					t.Fatalf("Detect(%q) = %v: %q is not in the source", src, fd, spec)
				}
			}
			if fd.File != "extension/a.js" && fd.File != "extension/a.bin" {
				t.Fatalf("Detect(%q) = %v: unknown file", src, fd)
			}
		}
	})
}
