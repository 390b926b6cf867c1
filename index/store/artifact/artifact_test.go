package artifact_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/google/go-cmp/cmp"
)

func digest(s string) string { return sha([]byte(s)) }

func sha(b []byte) string { return index.DigestBytes(b) }

func testInfo() artifact.ArtifactInfo {
	return artifact.ArtifactInfo{
		ID:             index.MustParseID("Golang.Go"),
		Version:        "0.41.0-pre.1+b7",
		Platform:       index.DarwinArm64,
		PreRelease:     true,
		Created:        time.Date(2025, 3, 4, 4, 29, 7, 108336000, time.FixedZone("CET", 3600)),
		UpstreamSHA256: strings.TrimPrefix(digest("vsix"), "sha256:"),
	}
}

func testLayers() []artifact.Layer {
	return []artifact.Layer{
		{Role: artifact.RoleVsix, Title: "golang.go-0.41.0-pre.1+b7@darwin-arm64.vsix", Digest: digest("vsix"), Size: 4},
		{Role: artifact.RoleUpstreamMetadata, Title: "golang.go.json", Digest: digest("api"), Size: 3},
		{Role: artifact.RoleUpstreamSignature, Title: "golang.go.sigzip", Digest: digest("sig"), Size: 3},
		{Role: artifact.RoleManifest, Title: "package.json", Digest: digest("pkg"), Size: 3},
		{Role: artifact.RoleReadme, Title: "README.md", Digest: digest("readme"), Size: 6},
		{Role: artifact.RoleChangelog, Title: "CHANGELOG.md", Digest: digest("changes"), Size: 7},
		{Role: artifact.RoleLicense, Title: "LICENSE", Digest: digest("mit"), Size: 3},
		{Role: artifact.RoleIcon, Title: "icon.png", Digest: digest("png"), Size: 3},
	}
}

// TestBuildManifestDeterministic shows that layer order does not matter,
// the bytes round-trip through ParseManifest, and Created is the given
// time in UTC.
func TestBuildManifestDeterministic(t *testing.T) {
	want, err := artifact.BuildManifest(testInfo(), testLayers())
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(10) {
		layers := testLayers()
		rand.New(rand.NewPCG(seed, 3)).Shuffle(len(layers), func(i, j int) { layers[i], layers[j] = layers[j], layers[i] })
		got, err := artifact.BuildManifest(testInfo(), layers)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("shuffle %d changed the bytes:\n%s", seed, cmp.Diff(string(want), string(got)))
		}
	}
	m, err := artifact.ParseManifest(want)
	if err != nil {
		t.Fatalf("ParseManifest(BuildManifest()) = %v", err)
	}
	info := testInfo()
	info.Created = info.Created.UTC()
	layers := testLayers()
	for i := range layers {
		layers[i].MediaType = artifact.MediaTypeFor(layers[i].Role, layers[i].Title)
	}
	wantM := &artifact.Manifest{Info: info, Layers: layers, Digest: sha(want), Size: int64(len(want))}
	if diff := cmp.Diff(wantM, m); diff != "" {
		t.Errorf("ParseManifest (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(want), `"org.opencontainers.image.created":"2025-03-04T03:29:07.108336Z"`) {
		t.Errorf("created is not the UTC publish time:\n%s", want)
	}
	if m.Repo() != "golang/go" || m.Tag() != "darwin-arm64-0.41.0-pre.1_b7" {
		t.Errorf("Repo, Tag = %s, %s", m.Repo(), m.Tag())
	}
	if l, ok := m.Layer(artifact.RoleIcon); !ok || l.MediaType != "image/png" {
		t.Errorf("Layer(icon) = %+v, %v", l, ok)
	}
}

func TestBuildManifestRejects(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*artifact.ArtifactInfo, *[]artifact.Layer)
		wantErr []string
	}{
		{"zero created", func(i *artifact.ArtifactInfo, _ *[]artifact.Layer) { i.Created = time.Time{} }, []string{"created", "zero time"}},
		{"bad id", func(i *artifact.ArtifactInfo, _ *[]artifact.Layer) { i.ID = index.ID{Namespace: "a/b", Name: "c"} }, []string{"vnd.airvsx.id"}},
		{"reserved id", func(i *artifact.ArtifactInfo, _ *[]artifact.Layer) { i.ID = index.MustParseID("con.x") }, []string{"reserved"}},
		{"loose version", func(i *artifact.ArtifactInfo, _ *[]artifact.Layer) { i.Version = "v1.2" }, []string{"vnd.airvsx.version"}},
		{"version too long for a tag", func(i *artifact.ArtifactInfo, _ *[]artifact.Layer) { i.Version = "1.0.0-" + strings.Repeat("a", 120) }, []string{"tag"}},
		{"platform", func(i *artifact.ArtifactInfo, _ *[]artifact.Layer) { i.Platform = "darwin-ppc" }, []string{"darwin-ppc"}},
		{"upstream sha", func(i *artifact.ArtifactInfo, _ *[]artifact.Layer) { i.UpstreamSHA256 = "ABC" }, []string{"upstream.sha256"}},
		{"vsix differs from upstream", func(i *artifact.ArtifactInfo, _ *[]artifact.Layer) {
			i.UpstreamSHA256 = strings.TrimPrefix(digest("other"), "sha256:")
		}, []string{"layers[0].digest", "differs"}},
		{"no vsix", func(_ *artifact.ArtifactInfo, l *[]artifact.Layer) { *l = (*l)[1:] }, []string{"no vsix layer"}},
		{"two readmes", func(_ *artifact.ArtifactInfo, l *[]artifact.Layer) { *l = append(*l, (*l)[4]) }, []string{"layers[8]: role readme repeats layers[4]"}},
		{"unknown role", func(_ *artifact.ArtifactInfo, l *[]artifact.Layer) { (*l)[4].Role = "screenshot" }, []string{"layers[4]", "screenshot"}},
		{"path title", func(_ *artifact.ArtifactInfo, l *[]artifact.Layer) { (*l)[4].Title = "../README.md" }, []string{"layers[4]", "plain file name"}},
		{"empty title", func(_ *artifact.ArtifactInfo, l *[]artifact.Layer) { (*l)[4].Title = "" }, []string{"layers[4]", "missing"}},
		{"control title", func(_ *artifact.ArtifactInfo, l *[]artifact.Layer) { (*l)[4].Title = "a\nb" }, []string{"control"}},
		// Device names only index/vsix refused before index.WindowsReserved.
		{"device title clock$", func(_ *artifact.ArtifactInfo, l *[]artifact.Layer) { (*l)[4].Title = "CLOCK$.md" }, []string{"layers[4]", "reserved device name"}},
		{"device title superscript", func(_ *artifact.ArtifactInfo, l *[]artifact.Layer) { (*l)[4].Title = "COM¹.md" }, []string{"layers[4]", "reserved device name"}},
		{"device title trailing space", func(_ *artifact.ArtifactInfo, l *[]artifact.Layer) { (*l)[4].Title = "con .md" }, []string{"layers[4]", "reserved device name"}},
		{"wrong media type", func(_ *artifact.ArtifactInfo, l *[]artifact.Layer) { (*l)[4].MediaType = "text/html" }, []string{"layers[4].mediaType", "text/markdown"}},
		{"bad digest", func(_ *artifact.ArtifactInfo, l *[]artifact.Layer) { (*l)[4].Digest = "sha256:xyz" }, []string{"layers[4].digest"}},
		{"negative size", func(_ *artifact.ArtifactInfo, l *[]artifact.Layer) { (*l)[4].Size = -1 }, []string{"layers[4].size"}},
		{"many problems", func(i *artifact.ArtifactInfo, l *[]artifact.Layer) {
			i.Version = "x"
			(*l)[3].Size = -1
			(*l)[5].Title = "/"
		}, []string{"vnd.airvsx.version", "layers[3].size", "layers[5]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, layers := testInfo(), testLayers()
			tt.edit(&info, &layers)
			_, err := artifact.BuildManifest(info, layers)
			if err == nil {
				t.Fatal("BuildManifest = nil error")
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("BuildManifest = %v; want it to mention %q", err, w)
				}
			}
		})
	}
}

func TestParseManifestRejects(t *testing.T) {
	good, err := artifact.BuildManifest(testInfo(), testLayers())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, old, new, wantErr string
	}{
		{"schema", `"schemaVersion":2`, `"schemaVersion":1`, "schemaVersion: 1"},
		{"media type", `"mediaType":"application/vnd.oci.image.manifest.v1+json"`, `"mediaType":"application/vnd.docker.distribution.manifest.v2+json"`, "mediaType"},
		{"artifact type", `"artifactType":"application/vnd.airvsx.extension.v1"`, `"artifactType":"application/vnd.unknown.artifact.v1"`, "artifactType"},
		{"config", `"size":2,"data":"e30="`, `"size":2`, "config"},
		{"config type", `"config":{"mediaType":"application/vnd.oci.empty.v1+json"`, `"config":{"mediaType":"application/vnd.oci.image.config.v1+json"`, "config"},
		{"unknown field", `"schemaVersion":2`, `"schemaVersion":2,"x":1`, "unknown field"},
		{"subject", `"schemaVersion":2`, `"schemaVersion":2,"subject":{"mediaType":"a","digest":"` + digest("s") + `","size":1}`, "subject"},
		{"unknown annotation", `"vnd.airvsx.id"`, `"vnd.airvsx.x":"1","vnd.airvsx.id"`, `annotations["vnd.airvsx.x"]: unknown`},
		{"missing platform", `"vnd.airvsx.platform":"darwin-arm64",`, ``, `annotations["vnd.airvsx.platform"]: missing`},
		{"prerelease", `"vnd.airvsx.prerelease":"true"`, `"vnd.airvsx.prerelease":"yes"`, "prerelease"},
		{"created not UTC", `"2025-03-04T03:29:07.108336Z"`, `"2025-03-04T04:29:07.108336+01:00"`, "canonical UTC"},
		{"created garbage", `"2025-03-04T03:29:07.108336Z"`, `"yesterday"`, "RFC 3339"},
		{"layer role", `"vnd.airvsx.role":"icon"`, `"vnd.airvsx.role":"virus"`, `layers[7].annotations["vnd.airvsx.role"]`},
		{"layer extra annotation", `"vnd.airvsx.role":"icon"`, `"vnd.airvsx.role":"icon","x":"y"`, `layers[7].annotations["x"]`},
		{"layer urls", `"size":3,"annotations":{"org.opencontainers.image.title":"icon.png"`, `"size":3,"urls":["http://x"],"annotations":{"org.opencontainers.image.title":"icon.png"`, "layers[7].urls"},
		{"layer order", `"vnd.airvsx.role":"readme"`, `"vnd.airvsx.role":"license"`, "layers[6]: role license repeats layers[4]"},
		{"title path", `"README.md"`, `"../../.bashrc"`, "layers[4]"},
		{"title windows", `"README.md"`, `"C:README.md"`, "layers[4]"},
		{"digest upper", digest("readme"), strings.ToUpper(digest("readme")), "layers[4].digest"},
		{"negative size", `"size":6`, `"size":-6`, "layers[4].size: -6"},
		{"vsix mismatch", `"vnd.airvsx.upstream.sha256":"` + strings.TrimPrefix(digest("vsix"), "sha256:"), `"vnd.airvsx.upstream.sha256":"` + strings.TrimPrefix(digest("x"), "sha256:"), "differs"},
		{"whitespace", `{"schemaVersion":2`, `{ "schemaVersion":2`, "canonical form"},
		{"key order", `"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json"`, `"mediaType":"application/vnd.oci.image.manifest.v1+json","schemaVersion":2`, "canonical form"},
		{"trailing newline", "$", "\n", "canonical"},
		{"trailing data", "$", "{}", "data after"},
		{"escaped", `"README.md"`, `"README\u002emd"`, "canonical form"},
		{"null layers", `"layers":[`, `"layers":null,"x":[`, "unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := strings.Replace(string(good), tt.old, tt.new, 1)
			if tt.old == "$" {
				in = string(good) + tt.new
			}
			if in == string(good) {
				t.Fatalf("edit %q changed nothing; fix the test", tt.old)
			}
			_, err := artifact.ParseManifest([]byte(in))
			if !errors.Is(err, artifact.ErrInvalidManifest) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("ParseManifest = %v; want ErrInvalidManifest mentioning %q", err, tt.wantErr)
			}
		})
	}
	if _, err := artifact.ParseManifest(bytes.Repeat([]byte(" "), artifact.MaxManifestBytes+1)); !errors.Is(err, artifact.ErrInvalidManifest) {
		t.Errorf("ParseManifest(huge) = %v", err)
	}
}

// FuzzParseManifest: whatever ParseManifest accepts is exactly what
// BuildManifest writes for the parsed info and layers.
func FuzzParseManifest(f *testing.F) {
	good, _ := artifact.BuildManifest(testInfo(), testLayers())
	f.Add(good)
	f.Add([]byte(`{"schemaVersion":2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := artifact.ParseManifest(data)
		if err != nil {
			return
		}
		again, err := artifact.BuildManifest(m.Info, m.Layers)
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("accepted %q but BuildManifest gives %q, %v", data, again, err)
		}
		if m.Digest != sha(data) || m.Size != int64(len(data)) || m.Tag() == "" {
			t.Fatalf("Digest, Size, Tag = %s, %d, %q", m.Digest, m.Size, m.Tag())
		}
	})
}

func TestMediaTypeFor(t *testing.T) {
	tests := []struct {
		role  artifact.Role
		title string
		want  string
	}{
		{artifact.RoleVsix, "x.zip", artifact.MediaTypeVsix},
		{artifact.RoleUpstreamMetadata, "x.json", artifact.MediaTypeUpstreamMetadata},
		{artifact.RoleUpstreamSignature, "x.sigzip", artifact.MediaTypeUpstreamSignature},
		{artifact.RoleManifest, "package.json", "application/json"},
		{artifact.RoleReadme, "README.md", "text/markdown"},
		{artifact.RoleReadme, "readme.MARKDOWN", "text/markdown"},
		{artifact.RoleChangelog, "CHANGELOG.txt", "text/plain"},
		{artifact.RoleLicense, "LICENSE", "text/plain"},
		{artifact.RoleIcon, "icon.PNG", "image/png"},
		{artifact.RoleIcon, "icon.jpeg", "image/jpeg"},
		{artifact.RoleIcon, "icon.svg", "image/svg+xml"},
		{artifact.RoleIcon, "icon.gif", "application/octet-stream"},
	}
	for _, tt := range tests {
		if got := artifact.MediaTypeFor(tt.role, tt.title); got != tt.want {
			t.Errorf("MediaTypeFor(%s, %q) = %q; want %q", tt.role, tt.title, got, tt.want)
		}
	}
}

func TestTag(t *testing.T) {
	tests := []struct {
		platform index.Platform
		version  string
		want     string
	}{
		{index.Universal, "1.2.3", "universal-1.2.3"},
		{index.LinuxX64, "2024.1.0", "linux-x64-2024.1.0"},
		{index.Web, "0.3.0+build.7", "web-0.3.0_build.7"},
		{index.LinuxArmhf, "1.0.0-rc.1+a-b", "linux-armhf-1.0.0-rc.1_a-b"},
		{index.Win32Ia32, "0.0.0-0", "win32-ia32-0.0.0-0"},
	}
	for _, tt := range tests {
		got, err := artifact.Tag(tt.platform, tt.version)
		if err != nil || got != tt.want {
			t.Errorf("Tag(%s, %s) = %q, %v; want %q", tt.platform, tt.version, got, err, tt.want)
			continue
		}
		p, v, err := artifact.ParseTag(got)
		if err != nil || p != tt.platform || v != tt.version {
			t.Errorf("ParseTag(%q) = %s, %s, %v; want %s, %s", got, p, v, err, tt.platform, tt.version)
		}
	}
	for _, bad := range []struct {
		p index.Platform
		v string
	}{{"", "1.0.0"}, {"linux-ppc", "1.0.0"}, {index.Universal, "1.0"}, {index.Universal, "v1.0.0"}, {index.Universal, "1.0.0-" + strings.Repeat("x", 118)}} {
		if got, err := artifact.Tag(bad.p, bad.v); err == nil {
			t.Errorf("Tag(%q, %q) = %q; want an error", bad.p, bad.v, got)
		}
	}
	for _, bad := range []string{"", "universal", "universal-", "universal-1.0", "sha256-" + strings.Repeat("a", 64) + ".sig", "linux-1.0.0", "x-1.0.0", "universal-1.0.0_a_b", "universal-1.0.0+a"} {
		if p, v, err := artifact.ParseTag(bad); err == nil {
			t.Errorf("ParseTag(%q) = %s, %s; want an error", bad, p, v)
		}
	}
}

func TestRepo(t *testing.T) {
	for _, tt := range []struct{ id, want string }{
		{"Golang.Go", "golang/go"},
		{"ms-python.python", "ms-python/python"},
		{"A_b.C$d~e", "a_b/c$d~e"},
	} {
		r := artifact.Repo(index.MustParseID(tt.id))
		if r != tt.want {
			t.Errorf("Repo(%s) = %s; want %s", tt.id, r, tt.want)
		}
		if err := store.CheckRepo(r); err != nil {
			t.Errorf("CheckRepo(%s) = %v", r, err)
		}
	}
}
