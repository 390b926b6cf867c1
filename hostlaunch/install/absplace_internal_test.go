package install

import (
	"os"
	"path/filepath"
	"testing"
)

func TestAbsPlace(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"reg":                  filepath.Join(wd, "reg"),
		"/srv/reg":             "/srv/reg",
		"git:reg.git":          "git:" + filepath.Join(wd, "reg.git"),
		"git:reg.git#main":     "git:" + filepath.Join(wd, "reg.git") + "#main",
		"git:/srv/r.git#v1":    "git:/srv/r.git#v1",
		"docker://host/prefix": "docker://host/prefix",
		"docker://h:5000/a#b":  "docker://h:5000/a#b",
	} {
		if got := absPlace(in); got != want {
			t.Errorf("absPlace(%q) = %q; want %q", in, got, want)
		}
	}
}
