package index

import "testing"

func TestPlatformFor(t *testing.T) {
	tests := []struct {
		goos, goarch string
		want         Platform
		ok           bool
	}{
		{"linux", "amd64", LinuxX64, true},
		{"linux", "arm64", LinuxArm64, true},
		{"linux", "arm", LinuxArmhf, true},
		{"windows", "amd64", Win32X64, true},
		{"windows", "386", Win32Ia32, true},
		{"darwin", "arm64", DarwinArm64, true},
		{"freebsd", "amd64", "", false},
		{"linux", "riscv64", "", false},
	}
	for _, tt := range tests {
		got, ok := PlatformFor(tt.goos, tt.goarch)
		if got != tt.want || ok != tt.ok {
			t.Errorf("PlatformFor(%q, %q) = %q, %v; want %q, %v", tt.goos, tt.goarch, got, ok, tt.want, tt.ok)
		}
		if ok && !got.Valid() {
			t.Errorf("PlatformFor(%q, %q) = %q, not a valid platform", tt.goos, tt.goarch, got)
		}
	}
	if !HostPlatform().Valid() {
		t.Errorf("HostPlatform() = %q, not a valid platform", HostPlatform())
	}
}
