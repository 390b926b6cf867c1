package mirror

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path"
	"strings"
	"sync"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/vsix"
	"github.com/airvsx/airvsx/policies"
)

// RejectError says a download failed verification; its files went to
// quarantine.
type RejectError struct {
	Item   string `json:"item"`   // ns.name@version[@platform]
	Reason string `json:"reason"` // what failed, for people
	Path   string `json:"path"`   // where the quarantined files are, in the registry ("quarantine/<name>")
}

func (e *RejectError) Error() string {
	return fmt.Sprintf("%s: rejected: %s (quarantined in %s)", e.Item, e.Reason, e.Path)
}

// fetcher downloads, verifies and stores items. It is safe for concurrent
// use.
type fetcher struct {
	client *Client
	store  store.Store
	pol    *policies.Policy
	tmpDir string
	log    *slog.Logger
	keys   *keyring
	// dl bounds downloads in flight and work bounds verification and
	// storing, so a slow check never holds a download slot.
	dl, work chan struct{}
}

// acquire takes a slot of sem, or fails when ctx is done.
func acquire(ctx context.Context, sem chan struct{}) (release func(), err error) {
	select {
	case sem <- struct{}{}:
		return func() { <-sem }, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// files of one item, as fetched (or recovered from the store).
type itemFiles struct {
	vsixPath string // a temp file
	vsixSize int64
	vsixSum  string // lowercase hex
	upSum    string // upstream's .sha256, "" when recovered from the store
	sigzip   []byte
	keyID    string
	meta     []byte
}

// fetch downloads one item, verifies every byte and stores it. A
// verification failure quarantines the files and returns a *RejectError;
// other errors (the network, the store) are returned as they are.
func (f *fetcher) fetch(ctx context.Context, it *Item) (index.Entry, error) {
	files := &itemFiles{meta: it.Meta.Raw}
	defer func() {
		if files.vsixPath != "" {
			os.Remove(files.vsixPath)
		}
	}()

	release, err := acquire(ctx, f.work)
	if err != nil {
		return index.Entry{}, err
	}
	resumed, err := f.recover(ctx, it, files)
	release()
	if err != nil {
		return index.Entry{}, err
	}
	if !resumed {
		release, err := acquire(ctx, f.dl)
		if err != nil {
			return index.Entry{}, err
		}
		reason, err := f.download(ctx, it, files)
		release()
		if err != nil {
			return index.Entry{}, err
		} else if reason != "" {
			return index.Entry{}, f.reject(ctx, it, files, reason)
		}
	}
	release, err = acquire(ctx, f.work)
	if err != nil {
		return index.Entry{}, err
	}
	e, reason, err := f.verifyAndStore(ctx, it, files)
	release()
	if err != nil {
		return index.Entry{}, err
	}
	if reason != "" {
		return index.Entry{}, f.reject(ctx, it, files, reason)
	}
	return e, nil
}

// download fetches the vsix, its .sha256 and its signature. It returns a
// rejection reason for content that is wrong, and an error for failures
// to fetch.
func (f *fetcher) download(ctx context.Context, it *Item, files *itemFiles) (string, error) {
	m := it.Meta
	tmp, err := os.CreateTemp(f.tmpDir, "vsix-*")
	if err != nil {
		return "", err
	}
	files.vsixPath = tmp.Name()
	n, err := f.client.Download(ctx, m.Files["download"], f.pol.MaxVsixBytes, tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, ErrTooLarge) {
		return fmt.Sprintf("the download is larger than maxVsixBytes (%d)", f.pol.MaxVsixBytes), nil
	}
	if err != nil {
		return "", fmt.Errorf("download %s: %w", it, err)
	}
	files.vsixSize = n
	if files.vsixSum, err = sha256File(files.vsixPath); err != nil {
		return "", err
	}

	if m.Files["sha256"] == "" {
		return "upstream published no sha256 for it", nil
	}
	sumText, err := f.client.Fetch(ctx, m.Files["sha256"], 1024)
	if err != nil {
		return "", fmt.Errorf("fetch sha256 of %s: %w", it, err)
	}
	files.upSum = strings.ToLower(strings.TrimSpace(string(sumText)))
	if files.upSum != files.vsixSum {
		return fmt.Sprintf("sha256 mismatch: upstream's .sha256 says %q, the download hashes to %s", truncate(files.upSum, 80), files.vsixSum), nil
	}

	if m.Files["signature"] == "" {
		return "", nil
	}
	if files.sigzip, err = f.client.Fetch(ctx, m.Files["signature"], vsix.MaxSigzipBytes); err != nil {
		return "", fmt.Errorf("fetch signature of %s: %w", it, err)
	}
	keyURL := m.Files["publicKey"]
	if keyURL == "" {
		return "upstream lists a signature but no public key", nil
	}
	files.keyID = keyIDFromURL(keyURL)
	if _, err := f.keys.get(ctx, f.client, files.keyID, keyURL); err != nil {
		var kerr *keyError
		if errors.As(err, &kerr) {
			return kerr.Error(), nil
		}
		return "", err
	}
	return "", nil
}

// recover reuses an entry a killed run stored but did not get into a
// signed catalog: its blobs are read back from the store (no download) and
// verified like a fresh download.
func (f *fetcher) recover(ctx context.Context, it *Item, files *itemFiles) (bool, error) {
	repo := store.Repo(it.ID)
	tag, err := store.Tag(it.Platform, it.Version)
	if err != nil {
		return false, err
	}
	tags, err := f.store.Tags(ctx, repo)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var desc *store.Descriptor
	for _, t := range tags {
		if t.Tag == tag {
			desc = &t.Manifest
		}
	}
	if desc == nil {
		return false, nil
	}
	raw, err := readBlob(ctx, f.store, repo, desc.Digest, desc.Size, 1<<20)
	if err != nil {
		f.log.Warn("stored entry unreadable; fetching again", "ext", it.String(), "err", err)
		return false, nil
	}
	man, err := store.ParseManifest(raw)
	if err != nil || man.Digest != desc.Digest {
		f.log.Warn("stored manifest invalid; fetching again", "ext", it.String(), "err", err)
		return false, nil
	}
	vl, _ := man.Layer(store.RoleVsix)
	tmp, err := os.CreateTemp(f.tmpDir, "vsix-*")
	if err != nil {
		return false, err
	}
	files.vsixPath = tmp.Name()
	r, err := f.store.OpenBlob(ctx, repo, vl.Digest, vl.Size)
	if err == nil {
		_, err = io.Copy(tmp, r)
		r.Close()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		f.log.Warn("stored vsix unreadable; fetching again", "ext", it.String(), "err", err)
		return false, nil
	}
	files.vsixSize, files.vsixSum = vl.Size, strings.TrimPrefix(vl.Digest, "sha256:")
	files.upSum = man.Info.UpstreamSHA256
	if sl, ok := man.Layer(store.RoleUpstreamSignature); ok {
		if files.sigzip, err = readBlob(ctx, f.store, repo, sl.Digest, sl.Size, vsix.MaxSigzipBytes); err != nil {
			f.log.Warn("stored signature unreadable; fetching again", "ext", it.String(), "err", err)
			return false, nil
		}
		files.keyID = keyIDFromURL(it.Meta.Files["publicKey"])
		if _, err := f.keys.get(ctx, f.client, files.keyID, it.Meta.Files["publicKey"]); err != nil {
			return false, nil
		}
	}
	f.log.Info("resuming a stored entry", "ext", it.String())
	return true, nil
}

// verifyAndStore checks the package (upstream signature, safe zip,
// manifests, identity), stores its blobs, manifest and tag, and returns
// its catalog entry. It returns a rejection reason for bad content.
func (f *fetcher) verifyAndStore(ctx context.Context, it *Item, files *itemFiles) (index.Entry, string, error) {
	if files.sigzip != nil {
		pub, err := f.keys.get(ctx, f.client, files.keyID, "")
		if err != nil {
			return index.Entry{}, err.Error(), nil
		}
		if err := vsix.VerifyUpstreamSignature(files.sigzip, pub, files.vsixPath); err != nil {
			return index.Entry{}, "upstream signature: " + err.Error(), nil
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
		got := entryName(pkg.ID, "?", pkg.Platform)
		if pkg.Version != nil {
			got = entryName(pkg.ID, pkg.Version.Original(), pkg.Platform)
		}
		return index.Entry{}, fmt.Sprintf("the package is %s, not the %s upstream listed", got, it), nil
	}

	repo := store.Repo(it.ID)
	var layers []store.Layer
	add := func(role store.Role, title string, digest string, size int64) {
		layers = append(layers, store.Layer{Role: role, Title: title, Digest: digest, Size: size})
	}
	// The vsix, exactly as downloaded.
	vf, err := os.Open(files.vsixPath)
	if err != nil {
		return index.Entry{}, "", err
	}
	err = f.store.PutBlob(ctx, repo, "sha256:"+files.vsixSum, files.vsixSize, store.SeekContent(vf))
	vf.Close()
	if err != nil {
		return index.Entry{}, "", fmt.Errorf("store %s: %w", it, err)
	}
	add(store.RoleVsix, fileName(it), "sha256:"+files.vsixSum, files.vsixSize)
	// Upstream's metadata and signature.
	d, n, err := putBytes(ctx, f.store, repo, files.meta)
	if err != nil {
		return index.Entry{}, "", err
	}
	add(store.RoleUpstreamMetadata, "openvsx.json", d, n)
	if files.sigzip != nil {
		if d, n, err = putBytes(ctx, f.store, repo, files.sigzip); err != nil {
			return index.Entry{}, "", err
		}
		add(store.RoleUpstreamSignature, strings.TrimSuffix(fileName(it), ".vsix")+".sigzip", d, n)
	}
	// Files extracted for the catalog and the site.
	assets := []struct {
		role store.Role
		path string
	}{
		{store.RoleManifest, vsix.PackageJSONPath},
		{store.RoleReadme, pkg.Assets.Readme},
		{store.RoleChangelog, pkg.Assets.Changelog},
		{store.RoleLicense, pkg.Assets.License},
		{store.RoleIcon, pkg.Assets.Icon},
	}
	for _, as := range assets {
		if as.path == "" {
			continue
		}
		d, n, err := putArchiveFile(ctx, f.store, repo, a, as.path)
		if err != nil {
			return index.Entry{}, "", fmt.Errorf("store %s of %s: %w", as.path, it, err)
		}
		add(as.role, path.Base(as.path), d, n)
	}

	info := store.ArtifactInfo{ID: it.ID, Version: it.Version, Platform: it.Platform, PreRelease: it.PreRelease, Created: it.Published, UpstreamSHA256: files.upSum}
	manifest, err := store.BuildManifest(info, layers)
	if err != nil {
		return index.Entry{}, "", fmt.Errorf("manifest of %s: %w", it, err)
	}
	m, err := store.PutArtifact(ctx, f.store, manifest)
	if err != nil {
		return index.Entry{}, "", fmt.Errorf("store %s: %w", it, err)
	}
	e := entryFor(it, pkg, files, m.Digest, m.Size)
	return e, "", nil
}

// entryFor builds the catalog entry of a stored item.
func entryFor(it *Item, pkg *vsix.Package, files *itemFiles, manifestDigest string, manifestSize int64) index.Entry {
	e := index.Entry{
		ID: it.ID, Version: it.Version, Platform: it.Platform, PreRelease: it.PreRelease,
		Published:      it.Published,
		ManifestDigest: manifestDigest, ManifestSize: manifestSize,
		VsixSHA256: files.vsixSum, VsixSize: files.vsixSize,
		Upstream:             index.Signature{Signed: files.sigzip != nil, KeyID: files.keyID},
		DeclaredCapabilities: pkg.Declared,
	}
	if files.sigzip == nil {
		e.Upstream.KeyID = ""
	}
	for _, fd := range pkg.Detected {
		e.DetectedCapabilities = append(e.DetectedCapabilities, index.Finding(fd))
	}
	if m := pkg.Manifest; m != nil {
		e.DisplayName, e.Description = m.DisplayName, m.Description
		e.Categories, e.Tags = m.Categories, m.Keywords
		e.Engine = m.Engines["vscode"]
		e.License, e.Repository, e.Homepage = m.License, m.Repository, m.Homepage
		e.ExtensionKind = m.ExtensionKind
		for _, s := range m.ExtensionDependencies {
			if id, err := index.ParseID(s); err == nil {
				e.Dependencies = append(e.Dependencies, id)
			}
		}
		for _, s := range m.ExtensionPack {
			if id, err := index.ParseID(s); err == nil {
				e.ExtensionPack = append(e.ExtensionPack, id)
			}
		}
	}
	return e
}

// reject quarantines the item's files with the reason.
func (f *fetcher) reject(ctx context.Context, it *Item, files *itemFiles, reason string) error {
	qf := map[string]io.Reader{}
	if files.meta != nil {
		qf["openvsx.json"] = bytes.NewReader(files.meta)
	}
	if files.upSum != "" {
		qf["upstream.sha256"] = strings.NewReader(files.upSum)
	}
	if files.sigzip != nil {
		qf["upstream.sigzip"] = bytes.NewReader(files.sigzip)
	}
	if files.vsixPath != "" {
		if vf, err := os.Open(files.vsixPath); err == nil {
			defer vf.Close()
			qf[fileName(it)] = vf
		}
	}
	name := strings.ReplaceAll(strings.ToLower(it.String()), "@", "-")
	p, err := f.store.Quarantine(ctx, name, reason, qf)
	if err != nil {
		return fmt.Errorf("quarantine %s (%s): %w", it, reason, err)
	}
	f.log.Warn("rejected", "ext", it.String(), "reason", reason, "quarantine", p)
	return &RejectError{Item: it.String(), Reason: reason, Path: p}
}

// fileName is the vsix's file name: ns.name-version[@platform].vsix.
func fileName(it *Item) string {
	s := it.ID.String() + "-" + it.Version
	if it.Platform != index.Universal {
		s += "@" + string(it.Platform)
	}
	return s + ".vsix"
}

func keyIDFromURL(u string) string {
	if p, err := url.Parse(u); err == nil {
		return path.Base(p.Path)
	}
	return path.Base(u)
}

func problemsText(ps []vsix.Problem) string {
	var parts []string
	for _, p := range ps {
		parts = append(parts, p.String())
	}
	return strings.Join(parts, "; ")
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func sha256File(p string) (string, error) {
	fh, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return "", fmt.Errorf("hash %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func putBytes(ctx context.Context, s store.Store, repo string, data []byte) (string, int64, error) {
	sum := sha256.Sum256(data)
	d := "sha256:" + hex.EncodeToString(sum[:])
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
	d := "sha256:" + hex.EncodeToString(h.Sum(nil))
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

func readBlob(ctx context.Context, s store.Store, repo, digest string, size, max int64) ([]byte, error) {
	if size > max {
		return nil, fmt.Errorf("blob %s in %s: %d bytes is more than %d", digest, repo, size, max)
	}
	r, err := s.OpenBlob(ctx, repo, digest, size)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// keyError is a problem with an upstream key: a rejection, not a failure.
type keyError struct{ msg string }

func (e *keyError) Error() string { return e.msg }

// keyring holds upstream's public keys: those pinned in the previous
// catalog, and those fetched (once per key id) during this run.
type keyring struct {
	mu     sync.Mutex
	pinned map[string]string // key id → PEM, from the previous catalog
	keys   map[string]ed25519.PublicKey
	pems   map[string]string // every key used this run
}

func newKeyring(pinned []index.UpstreamKey) *keyring {
	k := &keyring{pinned: map[string]string{}, keys: map[string]ed25519.PublicKey{}, pems: map[string]string{}}
	for _, p := range pinned {
		k.pinned[p.ID] = p.PEM
	}
	return k
}

// get returns the key with the id, fetching it from keyURL the first time
// unless the previous catalog pinned it. A fetched key that differs from
// the pinned one is refused.
func (k *keyring) get(ctx context.Context, c *Client, id, keyURL string) (ed25519.PublicKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if pub, ok := k.keys[id]; ok {
		return pub, nil
	}
	if id == "" || id == "." || id == "/" {
		return nil, &keyError{"upstream names no public key id"}
	}
	pemText, pinned := k.pinned[id]
	if !pinned {
		if keyURL == "" {
			return nil, &keyError{fmt.Sprintf("upstream key %q is unknown", id)}
		}
		b, err := c.Fetch(ctx, keyURL, 64<<10)
		if err != nil {
			return nil, fmt.Errorf("fetch upstream key %s: %w", id, err)
		}
		pemText = string(b)
	}
	pub, err := vsix.ParseUpstreamKey([]byte(pemText))
	if err != nil {
		return nil, &keyError{fmt.Sprintf("upstream key %q: %v", id, err)}
	}
	k.keys[id] = pub
	k.pems[id] = pemText
	return pub, nil
}

// used returns the keys used this run and those pinned before, for the
// new catalog: a key once pinned stays pinned.
func (k *keyring) used() []index.UpstreamKey {
	k.mu.Lock()
	defer k.mu.Unlock()
	all := map[string]string{}
	for id, p := range k.pinned {
		all[id] = p
	}
	for id, p := range k.pems {
		all[id] = p
	}
	var out []index.UpstreamKey
	for id, p := range all {
		out = append(out, index.UpstreamKey{ID: id, PEM: p})
	}
	return out
}
