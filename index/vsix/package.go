package vsix

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/airvsx/airvsx/index"
)

// Rules for a package as a whole.
const (
	// RuleMissingManifest: extension.vsixmanifest or extension/package.json
	// is not in the package (or is not a regular file).
	RuleMissingManifest Rule = "missing-manifest"
	// RuleManifestTooLarge: a manifest is larger than PackageOptions allows.
	RuleManifestTooLarge Rule = "manifest-too-large"
	// RuleManifestPath: the Microsoft.VisualStudio.Code.Manifest asset is
	// not extension/package.json, the file VS Code actually reads.
	RuleManifestPath Rule = "manifest-path"
	// RuleManifestMismatch: package.json and the vsixmanifest disagree on
	// publisher, name or version.
	RuleManifestMismatch Rule = "manifest-mismatch"
	// RulePropertyMismatch (warning): a vsixmanifest property (Engine,
	// ExtensionDependencies, ExtensionPack) disagrees with package.json.
	// airvsx follows package.json, as VS Code does.
	RulePropertyMismatch Rule = "manifest-property-mismatch"
	// RuleMissingAsset: an asset the vsixmanifest lists is not in the
	// package.
	RuleMissingAsset Rule = "missing-asset"
	// RuleMetadataAsset (warning): Metadata License or Icon names a file
	// that is not in the package.
	RuleMetadataAsset Rule = "metadata-asset"
	// RuleUnreadable: a file of the package could not be read.
	RuleUnreadable Rule = "unreadable-file"
	// RuleDetectLimit (warning): capability detection hit a limit of
	// DetectOptions and did not scan everything.
	RuleDetectLimit Rule = "detect-limit"
)

// Default limits of PackageOptions.
const (
	DefaultMaxManifestBytes     = 16 << 20
	DefaultMaxVSIXManifestBytes = 1 << 20
)

// PackageOptions tunes ReadPackageWith. The zero value works.
type PackageOptions struct {
	// MaxManifestBytes caps extension/package.json. 0 means
	// DefaultMaxManifestBytes (16 MiB).
	MaxManifestBytes int64
	// MaxVSIXManifestBytes caps extension.vsixmanifest. 0 means
	// DefaultMaxVSIXManifestBytes (1 MiB).
	MaxVSIXManifestBytes int64
	// Detect limits capability detection; see DetectOptions.
	Detect DetectOptions
}

// Package is what airvsx knows about one .vsix after reading its
// manifests and scanning its files.
type Package struct {
	ID         index.ID        // from package.json; zero when invalid
	Version    *semver.Version // from package.json; nil when invalid
	Platform   index.Platform  // from the vsixmanifest; "" when unknown
	PreRelease bool

	Manifest *Manifest     // nil when package.json is missing or not JSON
	VSIX     *VSIXManifest // nil when the vsixmanifest is missing or not XML
	Assets   Assets        // only paths of files present in the package

	Declared index.CapabilitySet
	Detected []Finding
	// APIMembers lists, sorted, the names of module vscode the package's
	// JavaScript reads: "Top" or "Top.member" (see Inspection.APIMembers),
	// at most MaxAPIMembers.
	APIMembers []string

	// Report holds every problem: manifest errors and warnings, agreement
	// and asset checks, detection limits.
	Report Report
}

// ReadPackage is ReadPackageWith with default options.
func ReadPackage(fsys fs.FS) *Package { return ReadPackageWith(fsys, PackageOptions{}) }

// ReadPackageWith reads the package in fsys (a safely opened archive, or a
// directory laid out like one) and checks it:
//
//   - extension.vsixmanifest is present and parses (ParseVSIXManifest);
//   - extension/package.json is present and parses (ParseManifest), and the
//     vsixmanifest's manifest asset, if any, names it;
//   - the two agree on publisher and name (ignoring case, as IDs do) and on
//     version (exactly); Identity TargetPlatform is a known platform;
//   - every asset the vsixmanifest lists is a file in the package;
//   - capability detection (Detect) runs over every file.
//
// It never returns nil; pkg.Report.Err() is the combined error.
func ReadPackageWith(fsys fs.FS, opts PackageOptions) *Package {
	if opts.MaxManifestBytes <= 0 {
		opts.MaxManifestBytes = DefaultMaxManifestBytes
	}
	if opts.MaxVSIXManifestBytes <= 0 {
		opts.MaxVSIXManifestBytes = DefaultMaxVSIXManifestBytes
	}
	pkg := &Package{}
	r := &pkg.Report

	if data, ok := readManifestFile(fsys, VSIXManifestPath, opts.MaxVSIXManifestBytes, r); ok {
		pkg.VSIX, _ = ParseVSIXManifest(data, r)
	}
	if v := pkg.VSIX; v != nil {
		if a := v.AssetPath(AssetManifest); a != "" && a != PackageJSONPath {
			r.Errorf(VSIXManifestPath, "Assets/Asset[@Type='"+AssetManifest+"']/@Path", RuleManifestPath,
				"%q: VS Code reads %s whatever the asset says", a, PackageJSONPath)
		}
	}
	if data, ok := readManifestFile(fsys, PackageJSONPath, opts.MaxManifestBytes, r); ok {
		pkg.Manifest, _ = ParseManifest(data, r)
	}
	m, v := pkg.Manifest, pkg.VSIX
	if m != nil && v != nil {
		checkAgreement(m, v, r)
	}
	if v != nil {
		pkg.Platform = v.TargetPlatform()
		pkg.PreRelease = v.PreRelease()
		pkg.Assets = checkAssets(fsys, v, r)
	}
	if m != nil {
		if id, err := m.ID(); err == nil {
			pkg.ID = id
		}
		if ver, err := index.ParseVersion(m.Version); err == nil {
			pkg.Version = ver
		}
		pkg.Declared = m.DeclaredCapabilities()
	}
	checkStorable(pkg, r)
	dopts := opts.Detect
	dopts.ManifestFile = PackageJSONPath
	found, api, errs := detect(fsys, m, dopts)
	pkg.Detected, pkg.APIMembers = found, api
	for _, e := range errs {
		r.Errorf(e.File, "", RuleUnreadable, "%v", e.Err)
	}
	for _, f := range found {
		if f.Kind == FindingIncomplete {
			r.Warnf(f.File, "", RuleDetectLimit, "%s", f.Trigger)
		}
	}
	return pkg
}

var errTooLarge = errors.New("too large")

// readManifestFile reads a manifest of at most max bytes, recording a
// problem when it cannot.
func readManifestFile(fsys fs.FS, name string, max int64, r *Report) ([]byte, bool) {
	data, err := readCapped(fsys, name, max)
	switch {
	case err == nil:
		return data, true
	case errors.Is(err, fs.ErrNotExist):
		r.Errorf(name, "", RuleMissingManifest, "%s is missing", name)
	case errors.Is(err, errTooLarge):
		r.Errorf(name, "", RuleManifestTooLarge, "larger than %d bytes", max)
	default:
		r.Errorf(name, "", RuleUnreadable, "%v", err)
	}
	return nil, false
}

func readCapped(fsys fs.FS, name string, max int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file: %w", name, fs.ErrNotExist)
	}
	if fi.Size() > max {
		return nil, errTooLarge
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, errTooLarge
	}
	return data, nil
}

// checkAgreement records every disagreement between package.json and the
// vsixmanifest. Missing values were reported by the parsers.
func checkAgreement(m *Manifest, v *VSIXManifest, r *Report) {
	mismatch := func(field, xmlField, want, got string) {
		r.Errorf(PackageJSONPath, field, RuleManifestMismatch, "%s %s is %q but %s %s is %q",
			PackageJSONPath, field, want, VSIXManifestPath, xmlField, got)
	}
	id := v.Identity
	if m.Publisher != "" && id.Publisher != "" && !strings.EqualFold(m.Publisher, id.Publisher) {
		mismatch("publisher", "Metadata/Identity/@Publisher", m.Publisher, id.Publisher)
	}
	if m.Name != "" && id.ID != "" && !strings.EqualFold(m.Name, id.ID) {
		mismatch("name", "Metadata/Identity/@Id", m.Name, id.ID)
	}
	if m.Version != "" && id.Version != "" && m.Version != id.Version {
		mismatch("version", "Metadata/Identity/@Version", m.Version, id.Version)
	}
	for _, p := range []struct{ field, prop, want string }{
		{"engines.vscode", PropertyEngine, m.Engines["vscode"]},
		{"extensionDependencies", PropertyExtensionDependencies, strings.Join(m.ExtensionDependencies, ",")},
		{"extensionPack", PropertyExtensionPack, strings.Join(m.ExtensionPack, ",")},
	} {
		if got, ok := v.Property(p.prop); ok && got != p.want {
			r.Warnf(PackageJSONPath, p.field, RulePropertyMismatch, "%s %s is %q but %s property %s is %q (package.json wins)",
				PackageJSONPath, p.field, p.want, VSIXManifestPath, p.prop, got)
		}
	}
}

// checkAssets checks that every listed asset is a file in fsys and returns
// the catalog paths that exist.
func checkAssets(fsys fs.FS, v *VSIXManifest, r *Report) Assets {
	exists := func(p string) bool {
		if !fs.ValidPath(p) {
			return false
		}
		fi, err := fs.Stat(fsys, p)
		return err == nil && fi.Mode().IsRegular()
	}
	for i, a := range v.Assets {
		if a.Path == "" || !fs.ValidPath(a.Path) || a.Path == PackageJSONPath {
			continue // reported by ParseVSIXManifest, or by readManifestFile
		}
		if !exists(a.Path) {
			r.Errorf(VSIXManifestPath, fmt.Sprintf("Assets/Asset[%d]/@Path", i+1), RuleMissingAsset,
				"%s asset %q is not in the package", a.Type, a.Path)
		}
	}
	for _, f := range []struct{ field, path string }{{"Metadata/License", v.License}, {"Metadata/Icon", v.Icon}} {
		if f.path != "" && !exists(f.path) {
			r.Warnf(VSIXManifestPath, f.field, RuleMetadataAsset, "%q is not in the package", f.path)
		}
	}
	a := v.AssetPaths()
	a.Manifest = PackageJSONPath // what was parsed, whatever the asset says
	for _, p := range []*string{&a.Manifest, &a.Readme, &a.Changelog, &a.License, &a.Icon} {
		if !exists(*p) {
			*p = ""
		}
	}
	return a
}
