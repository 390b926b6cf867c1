package openvsxtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestVersionReferencesPaging: offset is rounded down to a multiple of
// size, as upstream's PageRequest.of(offset/size, size) does.
func TestVersionReferencesPaging(t *testing.T) {
	s := New(t, Options{})
	all := []string{"2.0.0 universal", "1.1.0 universal", "1.0.0 universal", "1.0.0 darwin-arm64", "1.0.0 linux-x64", "0.9.0 universal"}
	tests := []struct {
		query      string
		status     int
		wantOffset float64
		want       []string
	}{
		{"", 200, 0, all}, // default size 18
		{"size=2", 200, 0, all[0:2]},
		{"size=2&offset=2", 200, 2, all[2:4]},
		{"size=2&offset=3", 200, 2, all[2:4]},
		{"size=4&offset=3", 200, 0, all[0:4]},
		{"size=4&offset=5", 200, 4, all[4:6]},
		{"size=100&offset=99", 200, 0, all},
		{"size=5&offset=10", 200, 10, nil},
		{"size=-1", 400, 0, nil},
		{"offset=-1", 400, 0, nil},
		{"size=0", 500, 0, nil},
		{"size=abc", 400, 0, nil},
	}
	for _, tt := range tests {
		url := s.URL + "/api/airvsx-demo/hello-command/version-references?" + tt.query
		status, b := get(t, url)
		if status != tt.status {
			t.Errorf("%s: status %d; want %d (%s)", tt.query, status, tt.status, b)
			continue
		}
		if status != http.StatusOK {
			continue
		}
		var res struct {
			Offset, TotalSize float64
			Versions          []struct{ Version, TargetPlatform string }
		}
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range res.Versions {
			got = append(got, v.Version+" "+v.TargetPlatform)
		}
		if res.Offset != tt.wantOffset || res.TotalSize != 6 || !cmp.Equal(got, tt.want) {
			t.Errorf("version-references?%s = offset %v total %v %q; want offset %v total 6 %q",
				tt.query, res.Offset, res.TotalSize, got, tt.wantOffset, tt.want)
		}
	}
}

// synthetic returns n universal versions 1.0.0 … 1.0.(n-1) of ns.name,
// built in code; every tenth is flagged pre-release.
func synthetic(n int) Fixtures {
	var fx Fixtures
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		fx = append(fx, Fixture{
			Namespace:  "synth",
			Name:       "many",
			Version:    fmt.Sprintf("1.0.%d", i),
			PreRelease: i%10 == 5,
			Timestamp:  FormatTimestamp(t0.Add(time.Duration(i) * time.Hour)),
			Engines:    []Engine{{"vscode", "^1.80.0"}},
		})
	}
	return fx
}

// TestAllVersionsCap: allVersions holds the aliases plus at most the 100
// newest versions, newest first; /versions still pages through all.
func TestAllVersionsCap(t *testing.T) {
	s := NewFromFixtures(t, synthetic(150), Options{})
	_, b := get(t, s.URL+"/api/synth/many")
	var raw struct{ AllVersions json.RawMessage }
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	keys := topLevelKeys(t, raw.AllVersions)
	want := []string{"latest", "pre-release"}
	for i := 149; i >= 50; i-- {
		want = append(want, fmt.Sprintf("1.0.%d", i))
	}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("allVersions keys (-want +got):\n%s", diff)
	}
	j := getJSON(t, s.URL+"/api/synth/many")
	if j["version"] != "1.0.149" || fmt.Sprint(j["files"]) != "map[]" {
		t.Errorf("latest = %v, files %v; want 1.0.149 with files {} (no package)", j["version"], j["files"])
	}
	pre := getJSON(t, s.URL+"/api/synth/many/pre-release")
	if pre["version"] != "1.0.145" {
		t.Errorf("pre-release = %v; want 1.0.145", pre["version"])
	}
	v := getJSON(t, s.URL+"/api/synth/many/versions?size=100&offset=100")
	if v["totalSize"] != 150.0 || v["offset"] != 100.0 || len(v["versions"].(map[string]any)) != 50 {
		t.Errorf("versions page 2 = total %v offset %v, %d versions; want 150, 100, 50",
			v["totalSize"], v["offset"], len(v["versions"].(map[string]any)))
	}
	r := getJSON(t, s.URL+"/api/synth/many/version-references?size=100&offset=140")
	if r["totalSize"] != 150.0 || r["offset"] != 100.0 || len(r["versions"].([]any)) != 50 {
		t.Errorf("version-references = total %v offset %v, %d refs; want 150, 100, 50",
			r["totalSize"], r["offset"], len(r["versions"].([]any)))
	}
}
