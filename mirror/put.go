package mirror

// Storing a verified item: its blobs, its manifest and tag, and the
// catalog entry that describes it.

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/vsix"
)

// verifyAndStore checks the package (upstream signature, as found while
// it was written; safe zip, manifests, identity), stores its blobs,
// manifest and tag, and returns its catalog entry. It returns a rejection
// reason for bad content. The vsix is read twice here, by the safe-zip
// check and by the store; its sha256 and signature are never computed
// again.
func (f *fetcher) verifyAndStore(ctx context.Context, it *Item, files *itemFiles) (index.Entry, string, error) {
	if files.sigzip != nil {
		// Checked while the package was written to its temp file.
		if !files.sigOK {
			return index.Entry{}, fmt.Sprintf("upstream signature: the signature by key %q does not verify over the package: %v", files.keyID, vsix.ErrUpstreamSignature), nil
		}
	} else if f.pol.RequireUpstreamSignature {
		return index.Entry{}, "upstream did not sign it and the policy sets requireUpstreamSignature", nil
	}

	a, err := vsix.Open(files.vsixPath, vsix.Options{MaxArchiveBytes: f.pol.MaxVsixBytes})
	if err != nil {
		var pe *vsix.ProblemsError
		if errors.As(err, &pe) {
			return index.Entry{}, "unsafe package: " + problemsText(pe.Problems), nil
		}
		return index.Entry{}, "", err
	}
	defer a.Close()
	pkg := vsix.ReadPackage(a)
	if errs := pkg.Report.Errors(); len(errs) > 0 {
		return index.Entry{}, "bad package: " + problemsText(errs), nil
	}
	if !pkg.ID.Equal(it.ID) || pkg.Version == nil || pkg.Version.Original() != it.Version || pkg.Platform != it.Platform {
		got := index.EntryName(pkg.ID, "?", pkg.Platform)
		if pkg.Version != nil {
			got = index.EntryName(pkg.ID, pkg.Version.Original(), pkg.Platform)
		}
		return index.Entry{}, fmt.Sprintf("the package is %s, not the %s upstream listed", got, it), nil
	}

	if reason := undeclaredDeps(it, pkg); reason != "" {
		return index.Entry{}, reason, nil
	}

	repo := artifact.Repo(it.ID)
	var layers []artifact.Layer
	add := func(role artifact.Role, title string, digest string, size int64) {
		layers = append(layers, artifact.Layer{Role: role, Title: title, Digest: digest, Size: size})
	}
	// The vsix, exactly as downloaded.
	if err := f.putVsix(ctx, repo, files); err != nil {
		return index.Entry{}, "", fmt.Errorf("store %s: %w", it, err)
	}
	add(artifact.RoleVsix, fileName(it), index.SHA256Digest(files.vsixSum), files.vsixSize)
	// Upstream's metadata and signature.
	d, n, err := putBytes(ctx, f.store, repo, files.meta)
	if err != nil {
		return index.Entry{}, "", err
	}
	add(artifact.RoleUpstreamMetadata, "openvsx.json", d, n)
	if files.sigzip != nil {
		if d, n, err = putBytes(ctx, f.store, repo, files.sigzip); err != nil {
			return index.Entry{}, "", err
		}
		add(artifact.RoleUpstreamSignature, strings.TrimSuffix(fileName(it), ".vsix")+".sigzip", d, n)
	}
	// Files extracted for the catalog and the site.
	more, err := putAssets(ctx, f.store, repo, a, pkg)
	if err != nil {
		return index.Entry{}, "", fmt.Errorf("store %s: %w", it, err)
	}
	layers = append(layers, more...)

	info := artifact.ArtifactInfo{ID: it.ID, Version: it.Version, Platform: it.Platform, PreRelease: it.PreRelease, Created: it.Published, UpstreamSHA256: files.upSum}
	manifest, err := artifact.BuildManifest(info, layers)
	if err != nil {
		return index.Entry{}, "", fmt.Errorf("manifest of %s: %w", it, err)
	}
	m, err := artifact.PutArtifact(ctx, f.store, manifest)
	if err != nil {
		return index.Entry{}, "", fmt.Errorf("store %s: %w", it, err)
	}
	e := entryFor(it, pkg, files, m.Digest, m.Size)
	return e, "", nil
}

// putAssets stores the files of the checked archive a that the catalog
// and the site show (package.json, and the README, changelog, licence
// and icon the vsixmanifest names), each as a blob of repo, and returns
// their layers.
func putAssets(ctx context.Context, s store.Store, repo string, a *vsix.Archive, pkg *vsix.Package) ([]artifact.Layer, error) {
	assets := []struct {
		role artifact.Role
		path string
	}{
		{artifact.RoleManifest, vsix.PackageJSONPath},
		{artifact.RoleReadme, pkg.Assets.Readme},
		{artifact.RoleChangelog, pkg.Assets.Changelog},
		{artifact.RoleLicense, pkg.Assets.License},
		{artifact.RoleIcon, pkg.Assets.Icon},
	}
	var layers []artifact.Layer
	for _, as := range assets {
		if as.path == "" {
			continue
		}
		d, n, err := putArchiveFile(ctx, s, repo, a, as.path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", as.path, err)
		}
		layers = append(layers, artifact.Layer{Role: as.role, Title: path.Base(as.path), Digest: d, Size: n})
	}
	return layers, nil
}

// putVsix stores the downloaded vsix: renamed into place when it is in the
// store's staging directory (it was hashed as it was written), copied
// otherwise.
func (f *fetcher) putVsix(ctx context.Context, repo string, files *itemFiles) error {
	digest := index.SHA256Digest(files.vsixSum)
	if f.staging != nil && filepath.Dir(files.vsixPath) == f.staging.Dir() {
		return f.staging.AdoptBlob(ctx, repo, digest, files.vsixSize, filepath.Base(files.vsixPath))
	}
	vf, err := os.Open(files.vsixPath)
	if err != nil {
		return err
	}
	defer vf.Close()
	return f.store.PutBlob(ctx, repo, digest, files.vsixSize, store.SeekContent(vf))
}

// undeclaredDeps returns a rejection reason when the package declares
// extensionDependencies or extensionPack members that upstream's metadata
// (from which the plan fetched the closure) does not list: the catalog
// entry records the package's own lists, so storing it would write a
// registry whose closure verify rejects.
func undeclaredDeps(it *Item, pkg *vsix.Package) string {
	if pkg.Manifest == nil {
		return ""
	}
	upDeps, _ := it.Meta.DependencyIDs() // malformed references failed the plan already
	upPack, _ := it.Meta.PackIDs()
	var missing []string
	for _, l := range []struct {
		field            string
		declared, listed []index.ID
	}{
		{"extensionDependencies", pkg.Manifest.DependencyIDs(), upDeps},
		{"extensionPack", pkg.Manifest.PackIDs(), upPack},
	} {
		for _, id := range l.declared {
			if !slices.ContainsFunc(l.listed, id.Equal) {
				missing = append(missing, l.field+" "+id.String())
			}
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("the package declares %s, which upstream's metadata does not list; the plan fetched its closure from that metadata, so the registry would lack what the package needs", strings.Join(missing, ", "))
}

// entryFor builds the catalog entry of a stored item.
func entryFor(it *Item, pkg *vsix.Package, files *itemFiles, manifestDigest string, manifestSize int64) index.Entry {
	e := index.Entry{
		ID: it.ID, Version: it.Version, Platform: it.Platform, PreRelease: it.PreRelease,
		Published:      it.Published,
		ManifestDigest: manifestDigest, ManifestSize: manifestSize,
		VsixSHA256: files.vsixSum, VsixSize: files.vsixSize,
		Upstream: index.Signature{Signed: files.sigzip != nil, KeyID: files.keyID},
	}
	if files.sigzip == nil {
		e.Upstream.KeyID = ""
	}
	summarize(&e, pkg)
	return e
}

// summarize fills the entry's summary fields from the package: declared
// and detected capabilities and what its package.json says.
func summarize(e *index.Entry, pkg *vsix.Package) {
	e.DeclaredCapabilities = pkg.Declared
	for _, fd := range pkg.Detected {
		e.DetectedCapabilities = append(e.DetectedCapabilities, index.Finding(fd))
	}
	if m := pkg.Manifest; m != nil {
		e.DisplayName, e.Description = m.DisplayName, m.Description
		e.Categories, e.Tags = m.Categories, m.Keywords
		e.Engine = m.Engines["vscode"]
		e.License, e.Repository, e.Homepage = m.License, m.Repository, m.Homepage
		e.ExtensionKind = m.ExtensionKind
		e.Dependencies, e.ExtensionPack = m.DependencyIDs(), m.PackIDs()
	}
}

// fileName is the vsix's file name: ns.name-version[@platform].vsix.
func fileName(it *Item) string {
	s := it.ID.String() + "-" + it.Version
	if it.Platform != index.Universal {
		s += "@" + string(it.Platform)
	}
	return s + ".vsix"
}

func putBytes(ctx context.Context, s store.Store, repo string, data []byte) (string, int64, error) {
	d := index.DigestBytes(data)
	if err := s.PutBlob(ctx, repo, d, int64(len(data)), store.BytesContent(data)); err != nil {
		return "", 0, fmt.Errorf("store blob in %s: %w", repo, err)
	}
	return d, int64(len(data)), nil
}

// putArchiveFile stores one file of a checked archive, streaming it twice
// (once to hash, once to store) so no file is held in memory.
func putArchiveFile(ctx context.Context, s store.Store, repo string, a *vsix.Archive, name string) (string, int64, error) {
	r, err := a.Open(name)
	if err != nil {
		return "", 0, err
	}
	h := sha256.New()
	n, err := io.Copy(h, r)
	r.Close()
	if err != nil {
		return "", 0, err
	}
	d := index.DigestOfSum(h.Sum(nil))
	c, err := store.Reopen(func() (io.ReadCloser, error) { return a.Open(name) })
	if err != nil {
		return "", 0, err
	}
	defer c.Close()
	if err := s.PutBlob(ctx, repo, d, n, c); err != nil {
		return "", 0, err
	}
	return d, n, nil
}
