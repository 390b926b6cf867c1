package serve_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/serve"
)

// extJSON is what the tests read of Open VSX's extension JSON.
type extJSON struct {
	Namespace, Name, Version string
	TargetPlatform           string
	Files                    map[string]string
	AllVersions              map[string]string
	Error                    string
}

// TestOpenVSXEveryEntry asks the extension JSON of every entry of the
// catalog, by ID, version and platform, and downloads its package from
// the URL the JSON gives: the registry's bytes, with the digest as ETag;
// each advertised file answers 200.
func TestOpenVSXEveryEntry(t *testing.T) {
	f := newFixture(t, serve.Options{})
	cat := catalog(t, f.dir)
	if len(cat.Entries) == 0 {
		t.Fatal("the demo catalog is empty")
	}
	for i := range cat.Entries {
		e := &cat.Entries[i]
		t.Run(e.String(), func(t *testing.T) {
			path := "/api/" + e.ID.Namespace + "/" + e.ID.Name + "/" + string(e.Platform) + "/" + e.Version
			resp, body := f.get(t, path)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: %s %s", path, resp.Status, body)
			}
			var x extJSON
			if err := json.Unmarshal(body, &x); err != nil {
				t.Fatalf("GET %s: %v", path, err)
			}
			if x.Version != e.Version || x.TargetPlatform != string(e.Platform) || !strings.EqualFold(x.Namespace+"."+x.Name, e.ID.String()) {
				t.Fatalf("GET %s: %s.%s@%s@%s", path, x.Namespace, x.Name, x.Version, x.TargetPlatform)
			}
			if x.AllVersions[e.Version] == "" {
				t.Errorf("allVersions %v lacks %s", x.AllVersions, e.Version)
			}
			dl := x.Files["download"]
			if !strings.HasPrefix(dl, f.ts.URL+"/") {
				t.Fatalf("files.download = %q", dl)
			}
			resp, got := f.get(t, strings.TrimPrefix(dl, f.ts.URL))
			if resp.StatusCode != http.StatusOK || !bytes.Equal(got, vsixBytes(t, f.dir, e)) {
				t.Fatalf("download %s: %s, %d bytes; want the registry's %d bytes", dl, resp.Status, len(got), e.VsixSize)
			}
			if etag := resp.Header.Get("ETag"); etag != `"sha256:`+e.VsixSHA256+`"` {
				t.Errorf("ETag %s; want the digest", etag)
			}
			resp, got = f.get(t, strings.TrimPrefix(x.Files["sha256"], f.ts.URL))
			if resp.StatusCode != http.StatusOK || string(got) != e.VsixSHA256 {
				t.Errorf("files.sha256: %s %q", resp.Status, got)
			}
			if _, ok := x.Files["signature"]; ok != e.Upstream.Signed {
				t.Errorf("files.signature advertised %v; the entry is signed upstream: %v", ok, e.Upstream.Signed)
			}
			for k, u := range x.Files {
				if resp, b := f.get(t, strings.TrimPrefix(u, f.ts.URL)); resp.StatusCode != http.StatusOK {
					t.Errorf("files.%s %s: %s %s", k, u, resp.Status, b)
				}
			}
		})
	}
}

// TestOpenVSXConditionalAndRange: a package answers If-None-Match with
// 304 and a Range with 206 and those bytes.
func TestOpenVSXConditionalAndRange(t *testing.T) {
	f := newFixture(t, serve.Options{})
	e := &catalog(t, f.dir).Entries[0]
	want := vsixBytes(t, f.dir, e)
	path := "/vscode/asset/" + e.ID.Namespace + "/" + e.ID.Name + "/" + e.Version + "/Microsoft.VisualStudio.Services.VSIXPackage?targetPlatform=" + string(e.Platform)
	resp, _ := f.get(t, path, "If-None-Match", `"sha256:`+e.VsixSHA256+`"`)
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %s; want 304", resp.Status)
	}
	resp, got := f.get(t, path, "Range", "bytes=10-19")
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(got, want[10:20]) {
		t.Errorf("Range: %s %q; want 206 %q", resp.Status, got, want[10:20])
	}
	resp, got = f.get(t, "/vscode/gallery/publishers/"+e.ID.Namespace+"/vsextensions/"+e.ID.Name+"/"+e.Version+"/vspackage?targetPlatform="+string(e.Platform))
	if resp.StatusCode != http.StatusOK || !bytes.Equal(got, want) {
		t.Errorf("vspackage: %s, %d bytes; want %d", resp.Status, len(got), len(want))
	}
}

// TestOpenVSXSearchAndQuery: search finds an extension by a word of its
// ID; query by extensionId answers its JSON; both bound their pages.
func TestOpenVSXSearchAndQuery(t *testing.T) {
	f := newFixture(t, serve.Options{})
	e := &catalog(t, f.dir).Entries[0]
	resp, body := f.get(t, "/api/-/search?query="+url.QueryEscape(e.ID.Name)+"&size=1000000")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("search: %s %s", resp.Status, body)
	}
	var sr struct {
		TotalSize  int
		Extensions []struct{ Files map[string]string }
	}
	if err := json.Unmarshal(body, &sr); err != nil || sr.TotalSize == 0 || len(sr.Extensions) == 0 || len(sr.Extensions) > 100 {
		t.Fatalf("search %s: %v %s", e.ID.Name, err, body)
	}
	resp, body = f.get(t, "/api/-/query?extensionId="+url.QueryEscape(e.ID.String()))
	if err := json.Unmarshal(body, &sr); resp.StatusCode != http.StatusOK || err != nil || len(sr.Extensions) != 1 || sr.Extensions[0].Files["download"] == "" {
		t.Fatalf("query: %s %v %s", resp.Status, err, body)
	}
	req, _ := http.NewRequestWithContext(t.Context(), "POST", f.ts.URL+"/api/-/query", strings.NewReader(`{"extensionId":"`+e.ID.String()+`"}`))
	if resp, body = do(t, req); resp.StatusCode != http.StatusOK {
		t.Fatalf("POST query: %s %s", resp.Status, body)
	}
}

// TestPublicKey: the upstream key of a signed entry is advertised and
// served as the catalog pins it.
func TestPublicKey(t *testing.T) {
	f := newFixture(t, serve.Options{})
	cat := catalog(t, f.dir)
	for i := range cat.Entries {
		e := &cat.Entries[i]
		if !e.Upstream.Signed || e.Upstream.KeyID == "" {
			continue
		}
		resp, body := f.get(t, "/api/-/public-key/"+url.PathEscape(e.Upstream.KeyID))
		var pem string
		for _, k := range cat.UpstreamKeys {
			if k.ID == e.Upstream.KeyID {
				pem = k.PEM
			}
		}
		if resp.StatusCode != http.StatusOK || string(body) != pem {
			t.Fatalf("public key %s: %s %q; want %q", e.Upstream.KeyID, resp.Status, body, pem)
		}
		return
	}
	t.Fatal("no signed entry in the demo catalog")
}
