package serve_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/serve"
	"github.com/airvsx/airvsx/testkit/demoreg"
)

// killList names other-pub malicious as a bare publisher (all of its
// extensions), git-helper by its ID, and deprecates night-theme for
// hello-command.
const killList = `{"malicious": ["other-pub", "AIRVSX-DEMO.git-helper"], "learnMoreLinks": {"other-pub": "https://example.org/why"},
 "deprecated": {"airvsx-demo.night-theme": {"extension": {"id": "airvsx-demo.hello-command", "displayName": "Hello"}}}}`

// pinList signs the next catalog of the registry in dir with list pinned
// as the upstream's control list; it returns the list's stored file.
func pinList(t *testing.T, dir, list string) string {
	t.Helper()
	return pinListAt(t, dir, list, demoreg.SyncNow2)
}

// pinListAt is pinList with the list fetched at fetched.
func pinListAt(t *testing.T, dir, list string, fetched time.Time) string {
	t.Helper()
	cat, digest := demoreg.ReadCatalog(t, dir)
	st := storetest.OpenDir(t, dir, dirstore.Options{})
	defer st.Close()
	meta := trust.Metadata(t.Context(), st)
	sum, err := trust.PutControl(t.Context(), meta, []byte(list))
	if err != nil {
		t.Fatal(err)
	}
	cat.Serial, cat.Previous = cat.Serial+1, digest
	cat.Control = []index.ControlRef{{Origin: index.ControlUpstream, Source: "https://example.org/extensions.json",
		FetchedAt: fetched, Digest: sum, Size: int64(len(list))}}
	if _, err := trust.PublishCatalog(t.Context(), meta, cat, demoreg.Get(t).Signer, trust.PublishOptions{Now: func() time.Time { return demoreg.SyncNow2.Add(time.Minute) }}); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "metadata", trust.ControlPath(cat.Control[0])[len("metadata/"):])
}

// galleryQuery posts a VS Code extensionquery for the extension names
// (filterType 7), or every extension without one, and returns the
// names of the extensions answered.
func galleryQuery(t *testing.T, f *fixture, names ...string) []string {
	t.Helper()
	criteria := []map[string]any{{"filterType": 8, "value": "Microsoft.VisualStudio.Code"}}
	for _, n := range names {
		criteria = append(criteria, map[string]any{"filterType": 7, "value": n})
	}
	body, _ := json.Marshal(map[string]any{"filters": []any{map[string]any{"criteria": criteria, "pageNumber": 1, "pageSize": 100}}, "flags": 0x1 | 0x2 | 0x10 | 0x80})
	req, _ := http.NewRequestWithContext(t.Context(), "POST", f.ts.URL+"/vscode/gallery/extensionquery", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, b := do(t, req)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("extensionquery: %s %s", resp.Status, b)
	}
	var a galleryAnswer
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range a.Results {
		for _, e := range r.Extensions {
			out = append(out, e.Publisher.PublisherName+"."+e.ExtensionName)
		}
	}
	return out
}

// TestControl: a registry with no list serves the empty list at the
// control URL and offers everything; a catalog whose list names an
// extension malicious (by ID, or by its bare publisher) stops offering
// it on the next poll, without a restart: absent from the extension
// JSON (404 saying why), search, query, the gallery's query and latest,
// and none of its bytes served; a deprecated one is offered with its
// replacement; the control URL answers the stored list byte for byte,
// with its ETag and a 304 for it.
func TestControl(t *testing.T) {
	f := newFixture(t, serve.Options{Gallery: serve.NewGallery})
	cat := catalog(t, f.dir)
	resp, body := f.get(t, serve.ControlPath)
	var empty map[string][]string
	if err := json.Unmarshal(body, &empty); err != nil || resp.StatusCode != http.StatusOK || len(empty) != 1 || empty["malicious"] == nil || len(empty["malicious"]) != 0 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("control URL without a list: %s %q %q", resp.Status, resp.Header.Get("Content-Type"), body)
	}
	if got := galleryQuery(t, f, "other-pub.unsigned-tool"); len(got) != 1 {
		t.Fatalf("before the list, the gallery answers %v for other-pub.unsigned-tool", got)
	}

	file := pinList(t, f.dir, killList)
	if swapped, err := f.srv.Reload(t.Context()); !swapped || err != nil {
		t.Fatalf("Reload to the catalog with the list = %v, %v", swapped, err)
	}
	banned := map[string]bool{}
	for _, e := range cat.Entries {
		if e.ID.Namespace == "other-pub" || e.ID.Name == "git-helper" {
			banned[e.ID.String()] = true
			ns, name := e.ID.Namespace, e.ID.Name
			resp, body := f.get(t, "/api/"+ns+"/"+name)
			var je struct{ Error string }
			json.Unmarshal(body, &je)
			if resp.StatusCode != http.StatusNotFound || !strings.Contains(je.Error, "malicious") || !strings.Contains(je.Error, "per the control list upstream") {
				t.Errorf("/api/%s/%s: %s %s; want 404 naming the verdict", ns, name, resp.Status, body)
			}
			for _, p := range []string{
				"/api/" + ns + "/" + name + "/" + e.Version + "/file/" + vsixFileName(&e),
				"/api/" + ns + "/" + name + "/" + string(e.Platform) + "/" + e.Version + "/file/package.json",
				"/vscode/gallery/publishers/" + ns + "/vsextensions/" + name + "/" + e.Version + "/vspackage?targetPlatform=" + string(e.Platform),
				"/vscode/asset/" + ns + "/" + name + "/" + e.Version + "/Microsoft.VisualStudio.Services.VSIXPackage?targetPlatform=" + string(e.Platform),
				"/vscode/gallery/" + ns + "/" + name + "/latest",
				"/vscode/item?itemName=" + ns + "." + name,
			} {
				resp, body := f.get(t, p)
				if (resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusGone) || !strings.Contains(string(body), "malicious") {
					t.Errorf("%s: %s %.100q; want 404 or 410 naming the verdict", p, resp.Status, body)
				}
				if bytes.Contains(body, vsixBytes(t, f.dir, &e)[:64]) {
					t.Errorf("%s: a byte of the package served", p)
				}
			}
			if got := galleryQuery(t, f, e.ID.String()); len(got) != 0 {
				t.Errorf("the gallery answers %v for %s", got, e.ID)
			}
		}
	}
	if len(banned) < 2 {
		t.Fatalf("the list bans %v: the test proves too little", banned)
	}
	answered := map[string][]string{"gallery": galleryQuery(t, f)}
	for _, p := range []string{"/api/-/search?size=100", "/api/-/query?namespaceName=airvsx-demo", "/api/v2/-/query?namespaceName=airvsx-demo",
		"/api/-/query?namespaceName=other-pub", "/api/-/query?extensionId=airvsx-demo.git-helper", "/api/-/search?query=git-helper"} {
		resp, body := f.get(t, p)
		var a struct {
			Extensions []struct{ Namespace, Name string }
		}
		if err := json.Unmarshal(body, &a); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %s %v", p, resp.Status, err)
		}
		for _, e := range a.Extensions {
			answered[p] = append(answered[p], e.Namespace+"."+e.Name)
		}
	}
	for p, ids := range answered {
		if len(ids) == 0 && !strings.Contains(p, "other-pub") && !strings.Contains(p, "git-helper") {
			t.Errorf("%s answers nothing: the test proves too little", p)
		}
		for _, id := range ids {
			if banned[id] {
				t.Errorf("%s offers %s, which the list names malicious", p, id)
			}
		}
	}

	resp, body = f.get(t, "/api/airvsx-demo/night-theme")
	var x struct {
		Deprecated  bool
		Replacement struct{ URL, DisplayName string }
	}
	json.Unmarshal(body, &x)
	if resp.StatusCode != http.StatusOK || !x.Deprecated || x.Replacement.DisplayName != "Hello" || x.Replacement.URL != f.ts.URL+"/api/airvsx-demo/hello-command" {
		t.Errorf("deprecated night-theme: %s deprecated=%v replacement=%+v", resp.Status, x.Deprecated, x.Replacement)
	}
	if resp, body := f.get(t, "/api/airvsx-demo/hello-command"); resp.StatusCode != http.StatusOK || bytes.Contains(body, []byte(`"deprecated":true`)) {
		t.Errorf("hello-command: %s, deprecated in %.200s", resp.Status, body)
	}

	stored, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	resp, body = f.get(t, serve.ControlPath)
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, stored) || resp.Header.Get("ETag") != `"`+index.DigestBytes(stored)+`"` {
		t.Errorf("control URL: %s ETag %q, %q; want the stored list %q", resp.Status, resp.Header.Get("ETag"), body, stored)
	}
	if resp, _ := f.get(t, serve.ControlPath, "If-None-Match", resp.Header.Get("ETag")); resp.StatusCode != http.StatusNotModified {
		t.Errorf("control URL with its ETag: %s; want 304", resp.Status)
	}
}

// TestControlTampered: a catalog whose pinned list was changed on disk
// is refused like any tamper, as is a newer catalog pinning a list
// fetched before the one served (rolled back); the verified snapshot
// (with its list) is kept.
func TestControlTampered(t *testing.T) {
	f := newFixture(t, serve.Options{})
	file := pinList(t, f.dir, `{"malicious": ["airvsx-demo.git-helper"]}`)
	if swapped, err := f.srv.Reload(t.Context()); !swapped || err != nil {
		t.Fatalf("Reload = %v, %v", swapped, err)
	}
	file2 := pinList(t, f.dir, killList)
	if err := os.WriteFile(file2, []byte(strings.Replace(killList, "other-pub", "other-puc", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	swapped, err := f.srv.Reload(t.Context())
	if swapped || err == nil || !strings.Contains(err.Error(), ".control.json") {
		t.Fatalf("Reload of a tampered list = %v, %v; want refused naming the list's file", swapped, err)
	}
	os.WriteFile(file2, []byte(killList), 0o644) // restored: serial 3 verifies again
	pinListAt(t, f.dir, killList, demoreg.SyncNow2.Add(-time.Hour))
	swapped, err = f.srv.Reload(t.Context())
	if swapped || err == nil || !strings.Contains(err.Error(), "rolled-back list") {
		t.Fatalf("Reload of a rolled-back list = %v, %v; want refused", swapped, err)
	}
	if got := serial(t, f); got != "2" {
		t.Errorf("serving serial %s; want the verified 2", got)
	}
	stored, _ := os.ReadFile(file)
	if _, body := f.get(t, serve.ControlPath); !bytes.Equal(body, stored) {
		t.Errorf("control URL after the refusal: %q; want the kept list %q", body, stored)
	}
	if resp, _ := f.get(t, "/api/other-pub/unsigned-tool"); resp.StatusCode != http.StatusOK {
		t.Errorf("other-pub.unsigned-tool after the refusal: %s; want still offered", resp.Status)
	}
}
