package index

import (
	"fmt"
	"slices"
)

// Platform is a VS Code target platform. The set is closed: Platforms lists
// every valid value.
type Platform string

// The target platforms VS Code and Open VSX know.
const (
	Universal   Platform = "universal"
	Web         Platform = "web"
	Win32X64    Platform = "win32-x64"
	Win32Arm64  Platform = "win32-arm64"
	Win32Ia32   Platform = "win32-ia32"
	LinuxX64    Platform = "linux-x64"
	LinuxArm64  Platform = "linux-arm64"
	LinuxArmhf  Platform = "linux-armhf"
	AlpineX64   Platform = "alpine-x64"
	AlpineArm64 Platform = "alpine-arm64"
	DarwinX64   Platform = "darwin-x64"
	DarwinArm64 Platform = "darwin-arm64"
)

// Platforms is every valid target platform, in a fixed order.
var Platforms = []Platform{
	Universal, Web,
	Win32X64, Win32Arm64, Win32Ia32,
	LinuxX64, LinuxArm64, LinuxArmhf,
	AlpineX64, AlpineArm64,
	DarwinX64, DarwinArm64,
}

// ParsePlatform parses a target platform name. The empty string means
// Universal, as in a vsixmanifest without a TargetPlatform attribute.
func ParsePlatform(s string) (Platform, error) {
	if s == "" {
		return Universal, nil
	}
	p := Platform(s)
	if !p.Valid() {
		return "", fmt.Errorf("unknown target platform %q (want one of %v)", s, Platforms)
	}
	return p, nil
}

// Valid reports whether p is one of Platforms.
func (p Platform) Valid() bool { return slices.Contains(Platforms, p) }

// String returns the platform's name.
func (p Platform) String() string { return string(p) }

// UnmarshalText parses a platform name, rejecting unknown ones.
func (p *Platform) UnmarshalText(b []byte) error {
	v, err := ParsePlatform(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}
