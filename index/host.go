package index

import "runtime"

// PlatformFor returns the VS Code target platform of an operating system
// and architecture as Go names them (GOOS, GOARCH), and false when VS Code
// has no target platform for them. Linux maps to the glibc platforms:
// VS Code's alpine-x64 and alpine-arm64 (musl) cannot be told apart from
// GOOS and GOARCH, so a caller on Alpine passes its platform explicitly.
func PlatformFor(goos, goarch string) (Platform, bool) {
	p, ok := map[[2]string]Platform{
		{"linux", "amd64"}:   LinuxX64,
		{"linux", "arm64"}:   LinuxArm64,
		{"linux", "arm"}:     LinuxArmhf,
		{"windows", "amd64"}: Win32X64,
		{"windows", "arm64"}: Win32Arm64,
		{"windows", "386"}:   Win32Ia32,
		{"darwin", "amd64"}:  DarwinX64,
		{"darwin", "arm64"}:  DarwinArm64,
	}[[2]string{goos, goarch}]
	return p, ok
}

// HostPlatform returns the target platform of the machine the program
// runs on (PlatformFor of runtime.GOOS and runtime.GOARCH), or Universal
// when VS Code has none for it: such a machine can only use universal
// builds.
func HostPlatform() Platform {
	if p, ok := PlatformFor(runtime.GOOS, runtime.GOARCH); ok {
		return p
	}
	return Universal
}
