// Package vsixtest builds .vsix archives for tests: a valid sample, minimal
// archives from a name-to-content map, and hostile archives that each break
// one archive rule of package vsix while being a plausible extension
// otherwise.
//
// Every archive is built in memory with archive/zip, patching raw header
// bytes where archive/zip cannot express the lie; none takes more than a
// few megabytes or more than a fraction of a second to build.
package vsixtest

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// Publisher, Name and Version identify the sample extension.
const (
	Publisher = "vsixtest"
	Name      = "sample"
	Version   = "1.0.0"
)

// modified is the timestamp of every entry, so builds are reproducible.
var modified = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// Write builds an archive into the file at path, replacing it.
func Write(path string, build func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := build(f); err != nil {
		f.Close()
		return fmt.Errorf("build %s: %w", path, err)
	}
	return f.Close()
}

// Bytes builds an archive in memory.
func Bytes(build func(io.Writer) error) ([]byte, error) {
	var b bytes.Buffer
	if err := build(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Minimal returns a build func for a valid archive holding files (name to
// content), deflated, in sorted name order. Names ending in "/" become
// directory entries.
func Minimal(files map[string]string) func(io.Writer) error {
	return func(w io.Writer) error {
		zw := zip.NewWriter(w)
		if err := addFiles(zw, files); err != nil {
			return err
		}
		return zw.Close()
	}
}

func addFiles(zw *zip.Writer, files map[string]string) error {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if err := add(zw, n, files[n]); err != nil {
			return err
		}
	}
	return nil
}

// add writes one deflated file (or a directory, for a name ending in "/").
func add(zw *zip.Writer, name, content string) error {
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: modified})
	if err != nil {
		return err
	}
	if strings.HasSuffix(name, "/") {
		return nil
	}
	_, err = io.WriteString(w, content)
	return err
}

// SampleFiles returns the files of a small valid extension: the
// vsixmanifest, [Content_Types].xml, package.json, a README and a main
// script. Callers may change the map; each call returns a new one.
func SampleFiles() map[string]string {
	return manifestFiles(Publisher, Name, Version, Version)
}

// Sample returns a build func for the archive of SampleFiles.
func Sample() func(io.Writer) error { return Minimal(SampleFiles()) }

// ManifestMismatch returns a build func for an archive that is valid at
// the archive layer, but whose extension/package.json says version 1.0.0
// while extension.vsixmanifest says 1.0.1: the manifest checks must
// reject it.
func ManifestMismatch() func(io.Writer) error {
	return Minimal(manifestFiles(Publisher, Name, "1.0.0", "1.0.1"))
}

func manifestFiles(publisher, name, pkgVersion, vsixVersion string) map[string]string {
	return map[string]string{
		"[Content_Types].xml": `<?xml version="1.0" encoding="utf-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension=".json" ContentType="application/json"/><Default Extension=".js" ContentType="application/javascript"/><Default Extension=".md" ContentType="text/markdown"/><Default Extension=".vsixmanifest" ContentType="text/xml"/></Types>
`,
		"extension.vsixmanifest": VSIXManifest(publisher, name, vsixVersion, Asset{AssetReadme, "extension/README.md"}),
		"extension/package.json": fmt.Sprintf(`{
  "name": %q,
  "displayName": %[1]q,
  "publisher": %q,
  "version": %q,
  "engines": { "vscode": "^1.80.0" },
  "main": "./extension.js",
  "activationEvents": ["onCommand:%[1]s.hello"],
  "contributes": {
    "commands": [{ "command": "%[1]s.hello", "title": "Hello" }]
  }
}
`, name, publisher, pkgVersion),
		"extension/README.md": "# " + name + "\n\nA test extension.\n",
		"extension/extension.js": `"use strict";
const vscode = require("vscode");
function activate(context) {
  context.subscriptions.push(vscode.commands.registerCommand("` + name + `.hello", () => {
    vscode.window.showInformationMessage("Hello");
  }));
}
module.exports = { activate, deactivate() {} };
`,
	}
}
