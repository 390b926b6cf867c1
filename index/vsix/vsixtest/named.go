package vsixtest

import (
	"encoding/json"
	"io"
	"strings"
)

// Named builds a minimal valid archive for publisher.name at version
// (both manifests agree), for names and versions that are the point of
// a test: a Windows device name, a very long build suffix.
func Named(publisher, name, version string) func(io.Writer) error {
	return Minimal(manifestFiles(publisher, name, version, version))
}

// DisplayName builds the Sample package with package.json's displayName
// set to display (JSON-escaped as needed): for text that must not reach a
// terminal as it is.
func DisplayName(display string) func(io.Writer) error {
	files := manifestFiles(Publisher, Name, "1.0.0", "1.0.0")
	quoted, _ := json.Marshal(display)
	files["extension/package.json"] = strings.Replace(files["extension/package.json"],
		`"displayName": "`+Name+`"`, `"displayName": `+string(quoted), 1)
	return Minimal(files)
}
