package store_test

import (
	"errors"
	"testing"

	"github.com/airvsx/airvsx/index/store"
)

func TestParsePlace(t *testing.T) {
	tests := []struct {
		in   string
		want store.Place
	}{
		{"registry", store.Place{Kind: store.PlaceDir, Path: "registry"}},
		{"/mnt/usb/registry", store.Place{Kind: store.PlaceDir, Path: "/mnt/usb/registry"}},
		{"./a:b", store.Place{Kind: store.PlaceDir, Path: "./a:b"}},
		{`C:\registry`, store.Place{Kind: store.PlaceDir, Path: `C:\registry`}},
		{"git:/srv/reg.git", store.Place{Kind: store.PlaceGit, Path: "/srv/reg.git"}},
		{"git:reg#v2", store.Place{Kind: store.PlaceGit, Path: "reg", Ref: "v2"}},
		{"git:reg#refs/heads/main", store.Place{Kind: store.PlaceGit, Path: "reg", Ref: "refs/heads/main"}},
		{"docker://127.0.0.1:5000/airvsx", store.Place{Kind: store.PlaceDocker, Host: "127.0.0.1:5000", Prefix: "airvsx"}},
		{"docker://registry.example/team/airvsx/", store.Place{Kind: store.PlaceDocker, Host: "registry.example", Prefix: "team/airvsx"}},
		{"docker://[::1]:5000/x", store.Place{Kind: store.PlaceDocker, Host: "[::1]:5000", Prefix: "x"}},
	}
	for _, tt := range tests {
		got, err := store.ParsePlace(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParsePlace(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			continue
		}
		if back, err := store.ParsePlace(got.String()); err != nil || back != got {
			t.Errorf("ParsePlace(%q.String() = %q) = %+v, %v; want a round trip", tt.in, got.String(), back, err)
		}
	}
}

func TestParsePlaceErrors(t *testing.T) {
	for _, in := range []string{
		"", "s3://bucket/x", "https://example.com/registry", "oci://x/y", "git:", "git:reg#", "git://example.com/x.git",
		"docker://", "docker://host", "docker://host/", "docker:///prefix", "docker://host:0/x", "docker://host:99999/x",
		"docker://host/UPPER", "docker://user@host/x", "docker://host/a//b", "reg\x00istry",
	} {
		if _, err := store.ParsePlace(in); !errors.Is(err, store.ErrUnknownPlace) {
			t.Errorf("ParsePlace(%q) = %v; want ErrUnknownPlace", in, err)
		}
	}
}
