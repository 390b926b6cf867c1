package vsix_test

import (
	"errors"
	"testing"

	"github.com/Masterminds/semver/v3"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/vsix"
)

func TestCheckIdentity(t *testing.T) {
	id := index.ID{Namespace: "golang", Name: "go"}
	v := semver.MustParse("0.40.0")
	p := &vsix.Package{ID: id, Version: v, Platform: index.Universal}
	tests := []struct {
		name     string
		id       index.ID
		version  string
		platform index.Platform
		ok       bool
	}{
		{"same", id, "0.40.0", index.Universal, true},
		{"case of the ID", index.ID{Namespace: "GoLang", Name: "Go"}, "0.40.0", index.Universal, true},
		{"other name", index.ID{Namespace: "golang", Name: "gopls"}, "0.40.0", index.Universal, false},
		{"other version", id, "0.40.1", index.Universal, false},
		{"version spelled otherwise", id, "v0.40.0", index.Universal, false},
		{"other platform", id, "0.40.0", "linux-x64", false},
	}
	for _, tt := range tests {
		err := p.CheckIdentity(tt.id, tt.version, tt.platform)
		var ie *vsix.IdentityError
		if tt.ok != (err == nil) || !tt.ok && !errors.As(err, &ie) {
			t.Errorf("%s: CheckIdentity = %v; ok %v", tt.name, err, tt.ok)
		}
	}
	if err := (&vsix.Package{ID: id}).CheckIdentity(id, "0.40.0", index.Universal); err == nil || err.Error() != "the package is golang.go@?, not golang.go@0.40.0" {
		t.Errorf("no version: %v", err)
	}
}
