package openvsx

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/testkit/openvsxtest"
)

func TestQueryVersions(t *testing.T) {
	s, c := newFixtureClient(t, openvsxtest.Options{Missing: []string{"nobody.nothing"}})
	exts, err := c.QueryVersions(t.Context(), helloID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range exts {
		got = append(got, e.Version+"@"+e.TargetPlatform)
		if len(e.Raw) == 0 || e.Engines["vscode"] == "" || e.Timestamp.IsZero() {
			t.Errorf("%s@%s: raw %d bytes, engines %v, timestamp %v", e.Version, e.TargetPlatform, len(e.Raw), e.Engines, e.Timestamp)
		}
		if e.Version != "0.9.0" && (e.Files["download"] == "" || e.Files["sha256"] == "" || e.Files["signature"] == "" || e.Files["publicKey"] == "") {
			t.Errorf("%s@%s: files %v", e.Version, e.TargetPlatform, e.Files)
		}
	}
	want := []string{"2.0.0@universal", "1.1.0@universal", "1.0.0@universal", "1.0.0@darwin-arm64", "1.0.0@linux-x64", "0.9.0@universal"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("QueryVersions (-want +got):\n%s", diff)
	}
	// The metadata is the version's, as the per-version GET has it.
	one, err := c.ExtensionVersion(t.Context(), helloID, index.LinuxX64, "1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	q := exts[4]
	if q.PreRelease != one.PreRelease || q.DownloadSize != one.DownloadSize || !cmp.Equal(q.Files, one.Files) || !q.Timestamp.Equal(one.Timestamp) {
		t.Errorf("query entry %+v; want the metadata of the version's own GET %+v", q, one)
	}
	if n := s.Count("/api/-/query"); n != 1 {
		t.Errorf("%d requests; want 1 page", n)
	}
	exts, err = c.QueryVersions(t.Context(), index.MustParseID("nobody.nothing"))
	if err != nil || len(exts) != 0 {
		t.Errorf("QueryVersions(missing) = %v, %v; want none", exts, err)
	}
}

func TestQueryVersionsPages(t *testing.T) {
	var fx openvsxtest.Fixtures
	for i := range 250 {
		fx = append(fx, openvsxtest.Fixture{Namespace: "p", Name: "many", Version: fmt.Sprintf("1.0.%d", i),
			Timestamp: "2024-01-01T00:00Z"})
	}
	s := openvsxtest.NewFromFixtures(t, fx, openvsxtest.Options{})
	c, _ := newTestClient(t, s.URL, nil)
	exts, err := c.QueryVersions(t.Context(), index.MustParseID("p.many"))
	if err != nil {
		t.Fatal(err)
	}
	if len(exts) != 250 {
		t.Errorf("got %d versions; want 250", len(exts))
	}
	var queries []string
	for _, r := range s.Requests() {
		queries = append(queries, r.Path+"?"+r.Query)
	}
	const q = "/api/-/query?extensionId=p.many&includeAllVersions=true&offset="
	want := []string{q + "0&size=100", q + "100&size=100", q + "200&size=100"}
	if diff := cmp.Diff(want, queries); diff != "" {
		t.Errorf("queries (-want +got):\n%s", diff)
	}
}

// queryServer serves /api/-/query for total versions of p.many the way a
// misbehaving upstream might: pages of at most maxPage entries, each
// starting overlap entries before the offset asked (so pages overlap),
// the reported offset rounded down, and entries named ext.
func queryServer(t *testing.T, total, maxPage, overlap int, ext string) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		size, _ := strconv.Atoi(r.URL.Query().Get("size"))
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		offset = max(offset-overlap, 0)
		end := min(offset+min(size, maxPage), total)
		var entries []string
		for i := offset; i < end; i++ {
			entries = append(entries, fmt.Sprintf(`{"namespace":"p","name":%q,"version":"1.0.%d","targetPlatform":"universal","timestamp":"2024-01-01T00:00Z"}`, ext, i))
		}
		fmt.Fprintf(w, `{"offset":%d,"totalSize":%d,"extensions":[%s]}`, offset/size*size, total, strings.Join(entries, ","))
	}))
	t.Cleanup(ts.Close)
	return ts
}

func TestQueryVersionsRobust(t *testing.T) {
	tests := []struct {
		name                    string
		total, maxPage, overlap int
		ext                     string
		wantErr                 string
	}{
		{name: "capped page size", total: 95, maxPage: 30, ext: "many"},
		{name: "overlapping pages", total: 250, maxPage: 100, overlap: 7, ext: "many"},
		{name: "too many", total: MaxVersionReferences + 1, maxPage: 100, ext: "many", wantErr: "more than"},
		{name: "another extension", total: 3, maxPage: 100, ext: "other", wantErr: "upstream answered extension p.other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := queryServer(t, tt.total, tt.maxPage, tt.overlap, tt.ext)
			c, _ := newTestClient(t, ts.URL, nil)
			exts, err := c.QueryVersions(t.Context(), index.MustParseID("p.many"))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("QueryVersions = %d, %v; want error %q", len(exts), err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, e := range exts {
				if seen[e.Version] {
					t.Errorf("%s listed twice", e.Version)
				}
				seen[e.Version] = true
			}
			if len(seen) != tt.total {
				t.Errorf("got %d distinct versions; want %d", len(seen), tt.total)
			}
		})
	}
}
