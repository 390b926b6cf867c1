package openvsxtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// queryPage is QueryResultJson, with the fields the tests read.
type queryPage struct {
	Offset, TotalSize float64
	Error             string
	Extensions        []map[string]any
}

func (p queryPage) rows() []string {
	var out []string
	for _, e := range p.Extensions {
		out = append(out, e["namespace"].(string)+"."+e["name"].(string)+" "+e["version"].(string)+" "+e["targetPlatform"].(string))
	}
	return out
}

// TestQuery: GET /api/-/query (v1) with upstream's parameters, paging,
// order and errors.
func TestQuery(t *testing.T) {
	s := New(t, Options{})
	const hc = "airvsx-demo.hello-command "
	all := []string{hc + "2.0.0 universal", hc + "1.1.0 universal", hc + "1.0.0 universal", hc + "1.0.0 darwin-arm64", hc + "1.0.0 linux-x64", hc + "0.9.0 universal"}
	tests := []struct {
		query      string
		status     int
		wantOffset float64
		wantTotal  float64
		want       []string
		wantErr    string
	}{
		{query: "extensionId=airvsx-demo.hello-command&includeAllVersions=true", status: 200, wantTotal: 6, want: all},
		{query: "extensionId=airvsx-demo.hello-command&includeAllVersions=true&size=2", status: 200, wantTotal: 6, want: all[0:2]},
		{query: "extensionId=airvsx-demo.hello-command&includeAllVersions=true&size=2&offset=2", status: 200, wantOffset: 2, wantTotal: 6, want: all[2:4]},
		// The exact offset applies; the one reported is rounded down.
		{query: "extensionId=airvsx-demo.hello-command&includeAllVersions=true&size=2&offset=3", status: 200, wantOffset: 2, wantTotal: 6, want: all[3:5]},
		{query: "extensionId=airvsx-demo.hello-command&includeAllVersions=true&size=4&offset=5", status: 200, wantOffset: 4, wantTotal: 6, want: all[5:6]},
		{query: "extensionId=airvsx-demo.hello-command&includeAllVersions=true&size=5&offset=10", status: 200, wantOffset: 10, wantTotal: 6},
		// Without all versions: each platform's latest, universal first.
		{query: "extensionId=airvsx-demo.hello-command", status: 200, wantTotal: 3, want: []string{hc + "2.0.0 universal", hc + "1.0.0 darwin-arm64", hc + "1.0.0 linux-x64"}},
		{query: "namespaceName=AIRVSX-DEMO&extensionName=hello-command&targetPlatform=linux-x64&includeAllVersions=true", status: 200, wantTotal: 1, want: []string{hc + "1.0.0 linux-x64"}},
		{query: "extensionId=airvsx-demo.hello-command&targetPlatform=nonsense&includeAllVersions=1", status: 200, wantTotal: 6, want: all},
		{query: "extensionId=airvsx-demo.hello-command&extensionVersion=1.0.0&includeAllVersions=true", status: 200, wantTotal: 3, want: all[2:5]},
		{query: "extensionId=airvsx-demo.hello-command&extensionUuid=1234", status: 200},
		{query: "extensionId=airvsx-demo.hello-command&namespaceName=airvsx-demo&extensionName=hello-command", status: 200, wantTotal: 3, want: []string{hc + "2.0.0 universal", hc + "1.0.0 darwin-arm64", hc + "1.0.0 linux-x64"}},
		{query: "extensionId=hello-command", status: 400, wantErr: "The 'extensionId' parameter must have the format 'namespace.extension'."},
		{query: "extensionId=a.b.c", status: 400, wantErr: "The 'extensionId' parameter must have the format 'namespace.extension'."},
		{query: "extensionId=airvsx-demo.hello-command&namespaceName=other", status: 400, wantErr: "Conflicting parameters 'extensionId' and 'namespaceName'"},
		{query: "extensionId=airvsx-demo.hello-command&extensionName=other", status: 400, wantErr: "Conflicting parameters 'extensionId' and 'extensionName'"},
		{query: "extensionId=airvsx-demo.hello-command&size=-1", status: 400, wantErr: "The parameter 'size' must not be negative."},
		{query: "extensionId=airvsx-demo.hello-command&offset=-1", status: 400, wantErr: "The parameter 'offset' must not be negative."},
		{query: "extensionId=airvsx-demo.hello-command&size=abc", status: 400},
		{query: "extensionId=airvsx-demo.hello-command&includeAllVersions=maybe", status: 400},
		{query: "extensionId=airvsx-demo.hello-command&size=0", status: 500},
	}
	for _, tt := range tests {
		status, b := get(t, s.URL+"/api/-/query?"+tt.query)
		if status != tt.status {
			t.Errorf("%s: status %d; want %d (%s)", tt.query, status, tt.status, b)
			continue
		}
		var p queryPage
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		if status != http.StatusOK {
			if tt.wantErr != "" && p.Error != tt.wantErr {
				t.Errorf("%s: error %q; want %q", tt.query, p.Error, tt.wantErr)
			}
			continue
		}
		if p.Offset != tt.wantOffset || p.TotalSize != tt.wantTotal || !cmp.Equal(p.rows(), tt.want) {
			t.Errorf("query?%s = offset %v total %v %q; want offset %v total %v %q",
				tt.query, p.Offset, p.TotalSize, p.rows(), tt.wantOffset, tt.wantTotal, tt.want)
		}
	}
}

// TestQueryEntries: a query entry is the version's ExtensionJson without
// the single GET's "downloads", with its files, and with "latest" and
// "pre-release" computed among the page's rows, as upstream does.
func TestQueryEntries(t *testing.T) {
	s := New(t, Options{})
	status, b := get(t, s.URL+"/api/-/query?extensionId=airvsx-demo.hello-command&includeAllVersions=true&size=2&offset=2")
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, b)
	}
	var p queryPage
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Extensions) != 2 {
		t.Fatalf("%d entries; want 2", len(p.Extensions))
	}
	got := p.Extensions[0] // 1.0.0 universal: the newest universal on this page
	single := getJSON(t, s.URL+"/api/airvsx-demo/hello-command/universal/1.0.0")
	if _, ok := got["downloads"]; ok {
		t.Errorf("query entry has downloads; upstream's have none")
	}
	for _, k := range []string{"files", "version", "targetPlatform", "preRelease", "timestamp", "engines", "dependencies", "bundledExtensions", "downloadSize", "displayName"} {
		if !cmp.Equal(got[k], single[k]) {
			t.Errorf("%s = %v; the single GET says %v", k, got[k], single[k])
		}
	}
	if diff := cmp.Diff([]any{"latest"}, got["versionAlias"]); diff != "" {
		t.Errorf("versionAlias of the page's newest universal (-want +got):\n%s", diff)
	}
	if f := files(t, got); !strings.HasSuffix(f["signature"], "/api/airvsx-demo/hello-command/1.0.0/file/airvsx-demo.hello-command-1.0.0.sigzip") || f["publicKey"] == "" {
		t.Errorf("files = %v; want the API's file URLs with the signature and key", f)
	}
}

// TestCDNListener: with Options.CDN the API redirects files to another
// origin, which serves them; each listener answers only its own paths.
func TestCDNListener(t *testing.T) {
	s := New(t, Options{CDN: true})
	if s.CDNURL == s.URL || s.CDNURL == "" {
		t.Fatalf("CDNURL %q, URL %q; want two listeners", s.CDNURL, s.URL)
	}
	resp, err := noRedirect.Get(s.URL + "/api/airvsx-demo/night-theme/2.1.0/file/download")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := s.CDNURL + "/cdn/airvsx-demo/night-theme/2.1.0/airvsx-demo.night-theme-2.1.0.vsix"
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusFound || loc != want {
		t.Fatalf("file URL: %d to %q; want 302 to %s", resp.StatusCode, loc, want)
	}
	status, b := get(t, want)
	if status != http.StatusOK || !cmp.Equal(b, ReadFixture(t, "airvsx-demo.night-theme-2.1.0.vsix")) {
		t.Errorf("CDN: status %d, %d bytes; want the package", status, len(b))
	}
	if n := s.Count("/cdn/"); n != 1 {
		t.Errorf("Count(/cdn/) = %d; want 1", n)
	}
}
