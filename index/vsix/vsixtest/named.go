package vsixtest

import "io"

// Named builds a minimal valid archive for publisher.name at version
// (both manifests agree), for names and versions that are the point of
// a test: a Windows device name, a very long build suffix.
func Named(publisher, name, version string) func(io.Writer) error {
	return Minimal(manifestFiles(publisher, name, version, version))
}
