package index

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func testEntry(id, version string, platform Platform) Entry {
	return Entry{
		ID:                   MustParseID(id),
		Version:              version,
		Platform:             platform,
		Published:            time.Date(2025, 3, 4, 3, 29, 7, 108336000, time.FixedZone("x", 3600)),
		ManifestDigest:       SHA256Digest(strings.Repeat("a", 64)),
		ManifestSize:         812,
		VsixSHA256:           strings.Repeat("b", 64),
		VsixSize:             4096,
		Categories:           []string{"Themes", "Other", "Other"},
		Tags:                 []string{"z", "a"},
		Dependencies:         []ID{MustParseID("b.dep"), MustParseID("A.dep"), MustParseID("a.DEP")},
		DeclaredCapabilities: CapabilitySet{Spawn, Network},
		DetectedCapabilities: []Finding{
			{Kind: "spawn", File: "extension/b.js", Trigger: `require("child_process")`},
			{Kind: "network", File: "extension/a.js", Trigger: `require("https")`},
			{Kind: "spawn", File: "extension/b.js", Trigger: `require("child_process")`},
		},
	}
}

func testCatalog() *Catalog {
	return &Catalog{
		Format:   FlatCatalogFormat,
		Serial:   7,
		Created:  time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC),
		Upstream: "https://open-vsx.org",
		UpstreamKeys: []UpstreamKey{
			{ID: "k2", PEM: "-----BEGIN PUBLIC KEY-----\nx\n-----END PUBLIC KEY-----\n"},
			{ID: "k1", PEM: "-----BEGIN PUBLIC KEY-----\ny\n-----END PUBLIC KEY-----\n"},
		},
		Entries: []Entry{
			testEntry("redhat.java", "1.30.0", Universal),
			testEntry("golang.go", "0.40.0", LinuxX64),
			testEntry("golang.go", "0.40.0", Universal),
			testEntry("golang.go", "0.9.0", Universal),
			testEntry("Golang.Go", "0.41.0-pre", Universal),
			testEntry("a.b", "10.0.0", DarwinArm64),
			localEntry("in-house.tool", "1.0.0"),
		},
	}
}

// localEntry is an entry added by hand (airvsx add): no upstream
// signature, who added it and when.
func localEntry(id, version string) Entry {
	e := testEntry(id, version, Universal)
	e.Local = &LocalAddition{AddedBy: strings.Repeat("c", 64), AddedAt: time.Date(2026, 12, 1, 9, 30, 0, 0, time.FixedZone("y", 7200))}
	return e
}

// TestCatalogCanonical shows that the same content gives the same bytes,
// whatever order it was assembled in.
func TestCatalogCanonical(t *testing.T) {
	want, err := testCatalog().Encode()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		c := testCatalog()
		r := rand.New(rand.NewPCG(uint64(i), 1))
		r.Shuffle(len(c.Entries), func(a, b int) { c.Entries[a], c.Entries[b] = c.Entries[b], c.Entries[a] })
		r.Shuffle(len(c.UpstreamKeys), func(a, b int) { c.UpstreamKeys[a], c.UpstreamKeys[b] = c.UpstreamKeys[b], c.UpstreamKeys[a] })
		for j := range c.Entries {
			e := &c.Entries[j]
			r.Shuffle(len(e.Tags), func(a, b int) { e.Tags[a], e.Tags[b] = e.Tags[b], e.Tags[a] })
			r.Shuffle(len(e.DetectedCapabilities), func(a, b int) {
				e.DetectedCapabilities[a], e.DetectedCapabilities[b] = e.DetectedCapabilities[b], e.DetectedCapabilities[a]
			})
		}
		got, err := c.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("shuffle %d: encoding differs:\n%s", i, cmp.Diff(string(want), string(got)))
		}
	}
	// Entries: by ID key, newest version first, then platform.
	c := testCatalog()
	c.Normalize()
	var order []string
	for _, e := range c.Entries {
		order = append(order, e.String())
	}
	wantOrder := []string{"a.b@10.0.0@darwin-arm64", "Golang.Go@0.41.0-pre", "golang.go@0.40.0@linux-x64", "golang.go@0.40.0", "golang.go@0.9.0", "in-house.tool@1.0.0", "redhat.java@1.30.0"}
	if diff := cmp.Diff(wantOrder, order); diff != "" {
		t.Errorf("entry order (-want +got):\n%s", diff)
	}
	if got := c.Entries[0].Published.Location(); got != time.UTC {
		t.Errorf("published location = %v; want UTC", got)
	}
	if e := c.Find(MustParseID("in-house.tool"), "1.0.0", Universal); e == nil || e.Local.AddedAt.Location() != time.UTC {
		t.Errorf("local addition of in-house.tool = %+v; want its addedAt in UTC", e)
	}
	if e := c.Find(MustParseID("GOLANG.go"), "0.40.0", LinuxX64); e == nil {
		t.Error("Find is not case-insensitive on the ID")
	}
}

func TestCatalogRoundTrip(t *testing.T) {
	c := testCatalog()
	b, err := c.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeCatalog(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("DecodeCatalog: %v", err)
	}
	b2, err := got.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, b2) {
		t.Fatalf("decode/encode changed the bytes:\n%s", cmp.Diff(string(b), string(b2)))
	}
}

func TestDecodeCatalogRejects(t *testing.T) {
	good, err := testCatalog().Encode()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		edit    func(string) string
		wantErr string
	}{
		{"unknown field", func(s string) string { return strings.Replace(s, `"format": 1,`, `"format": 1, "extra": true,`, 1) }, "unknown field"},
		{"trailing data", func(s string) string { return s + "{}" }, "data after"},
		{"format", func(s string) string { return strings.Replace(s, `"format": 1,`, `"format": 3,`, 1) }, "format: 3"},
		{"format 2 with entries", func(s string) string {
			return strings.Replace(s, `"format": 1,`, `"format": 2, "shardDigits": 1,`, 1)
		}, "lists its entries in its shards"},
		{"serial", func(s string) string { return strings.Replace(s, `"serial": 7,`, `"serial": 0,`, 1) }, "serial"},
		{"bad platform", func(s string) string { return strings.Replace(s, `"darwin-arm64"`, `"darwin-ppc"`, 1) }, "darwin-ppc"},
		{"bad id", func(s string) string { return strings.Replace(s, `"a.b"`, `"a/b"`, 1) }, "a/b"},
		{"bad version", func(s string) string { return strings.Replace(s, `"10.0.0"`, `"10.0"`, 1) }, "version"},
		{"bad digest", func(s string) string {
			return strings.Replace(s, "sha256:"+strings.Repeat("a", 64), "sha256:"+strings.Repeat("A", 64), 1)
		}, "manifestDigest"},
		{"bad capability", func(s string) string { return strings.Replace(s, `"spawn"`, `"camera"`, 1) }, "camera"},
		{"duplicate entry", func(s string) string {
			return strings.Replace(s, `"version": "0.9.0"`, `"version": "0.40.0"`, 1)
		}, "duplicate entry"},
		{"unknown key id", func(s string) string {
			return strings.Replace(s, `"upstreamSignature": {
        "signed": false
      }`, `"upstreamSignature": {"signed": true, "keyId": "nope"}`, 1)
		}, `keyId "nope"`},
		{"local without addedBy", func(s string) string {
			return strings.Replace(s, `"addedBy": "`+strings.Repeat("c", 64)+`"`, `"addedBy": ""`, 1)
		}, "local.addedBy"},
		{"local addedBy not a key id", func(s string) string {
			return strings.Replace(s, `"addedBy": "`+strings.Repeat("c", 64)+`"`, `"addedBy": "root\u001b[2J"`, 1)
		}, "local.addedBy"},
		{"local without addedAt", func(s string) string {
			return strings.Replace(s, `"addedAt": "2026-12-01T07:30:00Z"`, `"addedAt": "0001-01-01T00:00:00Z"`, 1)
		}, "local.addedAt: missing"},
		{"local with an unknown field", func(s string) string {
			return strings.Replace(s, `"addedAt": "2026-12-01T07:30:00Z"`, `"addedAt": "2026-12-01T07:30:00Z", "by": "x"`, 1)
		}, "unknown field"},
		{"local and signed upstream", func(s string) string {
			i := strings.Index(s, `"id": "in-house.tool"`)
			return s[:i] + strings.Replace(s[i:], `"signed": false`, `"signed": true`, 1)
		}, "a locally added entry has no upstream signature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.edit(string(good))
			if in == string(good) {
				t.Fatal("edit changed nothing; fix the test")
			}
			_, err := DecodeCatalog(strings.NewReader(in))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("DecodeCatalog = %v; want error containing %q", err, tt.wantErr)
			}
		})
	}
}
