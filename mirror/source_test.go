package mirror

import "testing"

func TestNeighbour(t *testing.T) {
	const (
		api = "https://open-vsx.org/api/ns/ext/linux-x64/1.0.0/file/"
		cdn = "https://cdn.example/ns/ext/linux-x64/1.0.0/"
	)
	tests := []struct {
		name               string
		loc, dl, file      string
		wantPrimary, wantA string
	}{
		{"beside the package", cdn + "ns.ext-1.0.0@linux-x64.vsix", api + "ns.ext-1.0.0@linux-x64.vsix", api + "ns.ext-1.0.0@linux-x64.sha256",
			cdn + "ns.ext-1.0.0@linux-x64.sha256", api + "ns.ext-1.0.0@linux-x64.sha256"},
		{"escaped name", cdn + "ns.ext-1.0.0%2Bb.vsix", api + "ns.ext-1.0.0%2Bb.vsix", api + "ns.ext-1.0.0%2Bb.sigzip",
			cdn + "ns.ext-1.0.0+b.sigzip", api + "ns.ext-1.0.0%2Bb.sigzip"},
		{"no such file", cdn + "x.vsix", api + "x.vsix", "", "", ""},
		{"another name in storage", cdn + "blob-1234", api + "x.vsix", api + "x.sha256", api + "x.sha256", ""},
		{"a signed URL", cdn + "x.vsix?sig=abc", api + "x.vsix", api + "x.sha256", api + "x.sha256", ""},
		{"a file of another version", cdn + "x.vsix", api + "x.vsix", "https://open-vsx.org/api/ns/ext/2.0.0/file/x.sha256", "https://open-vsx.org/api/ns/ext/2.0.0/file/x.sha256", ""},
		{"a type keyword", cdn + "x.vsix", api + "download", api + "sha256", api + "sha256", ""},
	}
	for _, tt := range tests {
		p, a := neighbour(tt.loc, tt.dl, tt.file)
		if p != tt.wantPrimary || a != tt.wantA {
			t.Errorf("%s: neighbour = %q, %q; want %q, %q", tt.name, p, a, tt.wantPrimary, tt.wantA)
		}
	}
}
