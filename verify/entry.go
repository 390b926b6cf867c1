package verify

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/vsix"
)

// entryCheck collects the problems of one entry, of the repository g.
type entryCheck struct {
	v     *registryVerifier
	g     *repoGroup
	e     *index.Entry
	name  string
	repo  string
	probs []Problem
}

func (c *entryCheck) add(rule Rule, path, format string, args ...any) {
	c.probs = append(c.probs, newProblem(Error, rule, path, c.name, fmt.Sprintf(format, args...), fixFor(rule)))
}

// parallel calls fn for 0 ≤ i < n on a bounded pool of workers
// (opts.Workers), each with its own hasher, until ctx is done.
func (v *registryVerifier) parallel(ctx context.Context, n int, fn func(h *hasher, i int)) {
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	workers := min(v.opts.Workers, max(n, 1))
	for len(v.hashers) < workers {
		v.hashers = append(v.hashers, newHasher())
	}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := v.hashers[w] // this worker's alone: one parallel call runs at a time
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				fn(h, i)
			}
		}()
	}
	wg.Wait()
}

// run checks the entry and returns how many blobs it checked and how many
// bytes it hashed, counting only blobs no other entry of its repository
// referenced before (repoGroup.use): a blob several entries share (the
// empty config, the README of two platforms' builds) is one blob, as
// copy and the registry's files count it.
func (c *entryCheck) run(ctx context.Context, h *hasher) (blobs int, hashed int64) {
	e, st := c.e, c.v.st
	count := func(first bool, n int64) {
		if first {
			blobs++
			hashed += n
		}
	}
	mpath := artifact.BlobName(c.repo, e.ManifestDigest)
	mfirst := c.g.use(e.ManifestDigest)
	if e.ManifestSize > artifact.MaxManifestBytes {
		c.add(RuleManifestInvalid, mpath, "the catalog pins a manifest of %d bytes, more than the %d a manifest may have", e.ManifestSize, artifact.MaxManifestBytes)
		return 0, 0
	}
	rc, err := st.OpenBlob(ctx, c.repo, e.ManifestDigest, e.ManifestSize)
	var raw []byte
	if err == nil {
		// Read into a buffer of the size the catalog pins (and the byte
		// that would show more), in as few reads as the store allows.
		buf := bytes.NewBuffer(make([]byte, 0, e.ManifestSize+1))
		_, err = buf.ReadFrom(rc)
		raw = buf.Bytes()
		rc.Close()
	}
	count(mfirst, int64(len(raw)))
	if err != nil {
		c.blobProblem(mpath, "manifest", err, true)
		return blobs, hashed
	}
	m, err := artifact.ParseManifest(raw)
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			c.add(RuleManifestInvalid, mpath, "%s", line)
		}
		return blobs, hashed
	}
	c.checkAnnotations(m, mpath)

	// The config and every layer.
	type blob struct {
		what   string
		digest string
		size   int64
		first  bool
	}
	list := []blob{{"config", artifact.EmptyConfigDigest, int64(len(artifact.EmptyConfig)), c.g.use(artifact.EmptyConfigDigest)}}
	var vsixLayer, sigLayer *artifact.Layer
	vsixFirst := false
	for i := range m.Layers {
		l := &m.Layers[i]
		first := c.g.use(l.Digest)
		switch l.Role {
		case artifact.RoleVsix:
			vsixLayer, vsixFirst = l, first
			continue // checked below, with the package rules
		case artifact.RoleUpstreamSignature:
			sigLayer = l
		}
		list = append(list, blob{fmt.Sprintf("layer %s (%s)", l.Role, l.Title), l.Digest, l.Size, first})
	}
	for _, b := range list {
		path := artifact.BlobName(c.repo, b.digest)
		if c.v.opts.NoReadData {
			count(b.first, 0)
			c.statBlob(ctx, b.what, path, b.digest, b.size)
			continue
		}
		n, err := h.blob(ctx, st, c.repo, b.digest, b.size)
		count(b.first, n)
		if err != nil {
			c.blobProblem(path, b.what, err, false)
		}
	}

	// The vsix: the entry's package, byte for byte.
	vpath := artifact.BlobName(c.repo, vsixLayer.Digest)
	if vsixLayer.Digest != artifact.VsixDigest(e) || vsixLayer.Size != e.VsixSize {
		c.add(RuleVsixEntry, mpath, "the vsix layer is %s (%d bytes); the catalog entry names sha256:%s (%d bytes)", vsixLayer.Digest, vsixLayer.Size, e.VsixSHA256, e.VsixSize)
	}
	if (sigLayer != nil) != e.Upstream.Signed {
		if e.Upstream.Signed {
			c.add(RuleSignatureMissing, mpath, "the catalog says upstream signed it, but the manifest has no %s layer", artifact.RoleUpstreamSignature)
		} else {
			c.add(RuleSignatureMissing, mpath, "the catalog says upstream did not sign it, but the manifest has a %s layer", artifact.RoleUpstreamSignature)
		}
	}
	if c.v.opts.NoReadData {
		count(vsixFirst, 0)
		c.statBlob(ctx, "layer vsix", vpath, vsixLayer.Digest, vsixLayer.Size)
		return blobs, hashed
	}
	n, err := c.checkVsix(ctx, h, *vsixLayer, sigLayer, vpath)
	count(vsixFirst, n)
	if err != nil {
		c.blobProblem(vpath, "layer vsix ("+vsixLayer.Title+")", err, false)
	}
	return blobs, hashed
}

// checkAnnotations compares what the manifest says with the entry.
func (c *entryCheck) checkAnnotations(m *artifact.Manifest, path string) {
	e, in := c.e, m.Info
	var bad []string
	if !in.ID.Equal(e.ID) {
		bad = append(bad, fmt.Sprintf("id %s, entry %s", in.ID, e.ID))
	}
	if in.Version != e.Version {
		bad = append(bad, fmt.Sprintf("version %s, entry %s", in.Version, e.Version))
	}
	if in.Platform != e.Platform {
		bad = append(bad, fmt.Sprintf("platform %s, entry %s", in.Platform, e.Platform))
	}
	if in.PreRelease != e.PreRelease {
		bad = append(bad, fmt.Sprintf("prerelease %v, entry %v", in.PreRelease, e.PreRelease))
	}
	if !in.Created.Equal(e.Published) {
		bad = append(bad, fmt.Sprintf("created %s, entry published %s", in.Created.Format("2006-01-02T15:04:05Z07:00"), e.Published.Format("2006-01-02T15:04:05Z07:00")))
	}
	if in.UpstreamSHA256 != "" && in.UpstreamSHA256 != e.VsixSHA256 {
		bad = append(bad, fmt.Sprintf("upstream sha256 %s, entry vsixSha256 %s", in.UpstreamSHA256, e.VsixSHA256))
	}
	if len(bad) > 0 {
		c.add(RuleManifestEntry, path, "the manifest's annotations disagree with the catalog entry: %s", strings.Join(bad, "; "))
	}
}

// statBlob checks a blob by size only (NoReadData).
func (c *entryCheck) statBlob(ctx context.Context, what, path, digest string, size int64) {
	got, err := c.v.st.StatBlob(ctx, c.repo, digest)
	switch {
	case err != nil:
		c.blobProblem(path, what, err, false)
	case got != size:
		c.add(RuleBlobSize, path, "%s: %d bytes; want %d", what, got, size)
	}
}

// blobProblem reports a failed blob read.
func (c *entryCheck) blobProblem(path, what string, err error, manifest bool) {
	var mm *store.MismatchError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if manifest {
			c.add(RuleManifestMissing, path, "%s: missing", what)
		} else {
			c.add(RuleBlobMissing, path, "%s: missing", what)
		}
	case errors.As(err, &mm):
		rule := RuleBlobDigest
		msg := fmt.Sprintf("%s: content has sha256 %s; want %s", what, strings.TrimPrefix(mm.GotDigest, "sha256:"), strings.TrimPrefix(mm.Digest, "sha256:"))
		if mm.GotSize != mm.Size {
			rule = RuleBlobSize
			msg = fmt.Sprintf("%s: %d bytes; want %d", what, mm.GotSize, mm.Size)
			if mm.GotSize == mm.Size+1 && mm.GotDigest == "" {
				msg = fmt.Sprintf("%s: more than the %d bytes it should have", what, mm.Size)
			}
		}
		if manifest {
			rule = RuleManifestMismatch
		}
		c.add(rule, path, "%s", msg)
	default:
		c.add(RuleBlobUnreadable, path, "%s: %v", what, err)
	}
}

// checkVsix hashes the vsix, and when it is the right file, checks it
// against the safe-zip rules, its manifests against the entry, and the
// upstream signature. It returns the bytes hashed; the error is a blob
// read problem (missing, wrong size or digest, I/O).
func (c *entryCheck) checkVsix(ctx context.Context, h *hasher, l artifact.Layer, sig *artifact.Layer, path string) (int64, error) {
	// One pass hashes the file with sha256 (its digest) and, when the
	// entry is signed, feeds the Ed25519 check, unless the signature cache
	// holds a verdict for the file this should be (whether it is, is
	// decided in vsixVerdict, from the sha256 this pass computes).
	var us *upstreamSig
	if sig != nil && c.e.Upstream.Signed {
		us = c.signatureCheck(ctx, *sig)
	}
	var ed *vsix.UpstreamVerifier
	if us != nil && !c.v.sigs.contains(us.key(l.Digest)) {
		ed = vsix.NewUpstreamVerifier(us.pub, us.sig)
	}
	// A store with the blob's own file (store.BlobFiler) is read at
	// offsets, without the spool a verifying reader needs for the package
	// check afterwards (see hasher.file).
	bf, ok := store.As[store.BlobFiler](c.v.st)
	if !ok {
		// Any store: spool through the verifying reader.
		var also io.Writer
		if ed != nil {
			also = ed
		}
		f, err := store.OpenBlobAt(ctx, c.v.st, c.repo, l.Digest, l.Size, also, "")
		if err != nil {
			return 0, err
		}
		defer f.Close()
		// OpenBlobAt returns the file only when its sha256 is l.Digest.
		c.vsixVerdict(ctx, us, ed, l.Digest, f, l.Size, path)
		return l.Size, nil
	}
	f, err := bf.OpenBlobFile(ctx, c.repo, l.Digest)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if fi.Size() != l.Size {
		return 0, &store.MismatchError{Repo: c.repo, Digest: l.Digest, Size: l.Size, GotSize: fi.Size()}
	}
	n, sum, err := h.file(ctx, f, l.Size, ed)
	if err != nil {
		return n, err
	}
	if sum != l.Digest {
		return n, &store.MismatchError{Repo: c.repo, Digest: l.Digest, Size: l.Size, GotSize: l.Size, GotDigest: sum}
	}
	c.vsixVerdict(ctx, us, ed, sum, f, l.Size, path)
	return n, nil
}

// vsixVerdict reports the upstream signature's verdict and checks the
// package, once the vsix's digest matched; sum is the sha256 this run
// computed over f. ed is the Ed25519 check fed with f, or nil when
// checkVsix expected a cached verdict: the cache is then asked with sum,
// and when it has no verdict for it, f is read once more for the check.
func (c *entryCheck) vsixVerdict(ctx context.Context, us *upstreamSig, ed *vsix.UpstreamVerifier, sum string, f io.ReaderAt, size int64, path string) {
	if us != nil {
		c.signatureVerdict(ctx, us, ed, sum, f, size, path)
	}
	c.checkPackage(f, size, path)
}

// signatureVerdict decides the upstream signature of the vsix f whose
// sha256, computed in this run, is sum: from the cache only when it holds
// exactly (sum, the signature, the key), else by the Ed25519 check, whose
// valid verdict it records.
func (c *entryCheck) signatureVerdict(ctx context.Context, us *upstreamSig, ed *vsix.UpstreamVerifier, sum string, f io.ReaderAt, size int64, path string) {
	key := us.key(sum)
	if ed == nil {
		if c.v.sigs.valid(key) {
			c.v.sigsCached.Add(1)
			return
		}
		ed = vsix.NewUpstreamVerifier(us.pub, us.sig)
		if _, err := io.Copy(ed, io.NewSectionReader(f, 0, size)); err != nil {
			if ctx.Err() == nil {
				c.add(RuleBlobUnreadable, path, "read for the Ed25519 check: %v", err)
			}
			return
		}
	}
	c.v.sigsVerified.Add(1)
	if !ed.Verify() {
		c.add(RuleSignatureInvalid, path, "Open VSX's Ed25519 signature (key %s) does not verify over this vsix", c.e.Upstream.KeyID)
		return
	}
	c.v.sigs.add(key)
}

// signatureCheck reads the sigzip layer (verified by OpenBlob) and the
// key the catalog pins for the entry; it returns nil after reporting why
// the signature cannot be checked.
func (c *entryCheck) signatureCheck(ctx context.Context, l artifact.Layer) *upstreamSig {
	path := artifact.BlobName(c.repo, l.Digest)
	if l.Size > vsix.MaxSigzipBytes {
		c.add(RuleSignatureInvalid, path, "the sigzip is %d bytes, more than %d", l.Size, vsix.MaxSigzipBytes)
		return nil
	}
	rc, err := c.v.st.OpenBlob(ctx, c.repo, l.Digest, l.Size)
	if err != nil {
		return nil // reported with the other blobs
	}
	data, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		return nil // reported with the other blobs
	}
	sig, err := vsix.ReadSigzipSignature(data)
	if err != nil {
		c.add(RuleSignatureInvalid, path, "%s", oneLine(err))
		return nil
	}
	var pemKey string
	for _, k := range c.v.head.UpstreamKeys {
		if k.ID == c.e.Upstream.KeyID {
			pemKey = k.PEM
		}
	}
	if pemKey == "" {
		c.add(RuleSignatureKey, artifact.BlobName(c.repo, c.e.ManifestDigest), "upstream key %q is not pinned in the catalog", c.e.Upstream.KeyID)
		return nil
	}
	pub, err := vsix.ParseUpstreamKey([]byte(pemKey))
	if err != nil {
		c.add(RuleSignatureKey, "metadata/", "catalog upstreamKeys %q: %v", c.e.Upstream.KeyID, err)
		return nil
	}
	return &upstreamSig{pub: pub, sig: sig}
}

// upstreamSig is an entry's upstream signature and the key that should
// have made it.
type upstreamSig struct {
	pub ed25519.PublicKey
	sig []byte
}

// key is the signature cache's key for the vsix with sha256 digest
// ("sha256:<hex>"); the zero key (never in a cache) when the digest or
// the key is malformed.
func (us *upstreamSig) key(digest string) sigKey {
	k, ok := newSigKey(digest, us.sig, us.pub)
	if !ok {
		return sigKey{}
	}
	return k
}

// checkPackage applies the safe-zip rules and the manifest rules and
// compares the package with the entry.
func (c *entryCheck) checkPackage(f io.ReaderAt, size int64, path string) {
	// The archive's size is pinned by the signed catalog; a size limit is
	// the policy's to judge (policy-denied), not a safe-zip rule here.
	a, err := vsix.NewReader(f, size, vsix.Options{MaxArchiveBytes: max(size, 1)})
	if err != nil {
		var pe *vsix.ProblemsError
		if errors.As(err, &pe) {
			for _, p := range pe.Problems {
				c.add(RuleVsixUnsafe, path, "%s", p.String())
			}
			return
		}
		c.add(RuleBlobUnreadable, path, "%v", err)
		return
	}
	defer a.Close()
	pkg := vsix.ReadPackage(a)
	for _, p := range pkg.Report.Errors() {
		c.add(RuleVsixPackage, path, "%s", p.String())
	}
	c.comparePackage(pkg, path)
}

// comparePackage checks that the package is the entry: identity, and the
// summary fields installers act on.
func (c *entryCheck) comparePackage(pkg *vsix.Package, path string) {
	e := c.e
	if err := pkg.CheckIdentity(e.ID, e.Version, e.Platform); err != nil {
		c.add(RuleVsixIdentity, path, "%v", err)
		return
	}
	var bad []string
	if m := pkg.Manifest; m != nil {
		if !sameIDs(e.Dependencies, m.DependencyIDs()) {
			bad = append(bad, fmt.Sprintf("dependencies %v, package %v", e.Dependencies, m.ExtensionDependencies))
		}
		if !sameIDs(e.ExtensionPack, m.PackIDs()) {
			bad = append(bad, fmt.Sprintf("extensionPack %v, package %v", e.ExtensionPack, m.ExtensionPack))
		}
		if e.Engine != m.Engines["vscode"] {
			bad = append(bad, fmt.Sprintf("engine %q, package %q", e.Engine, m.Engines["vscode"]))
		}
	}
	if !slices.Equal(index.NewCapabilitySet(e.DeclaredCapabilities...), index.NewCapabilitySet(pkg.Declared...)) {
		bad = append(bad, fmt.Sprintf("declaredCapabilities %v, package %v", e.DeclaredCapabilities, pkg.Declared))
	}
	if len(bad) > 0 {
		c.add(RuleEntrySummary, path, "the catalog entry disagrees with its package: %s", strings.Join(bad, "; "))
	}
}

func sameIDs(a, b []index.ID) bool {
	key := func(ids []index.ID) []string {
		var out []string
		for _, id := range ids {
			out = append(out, id.Key())
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	return slices.Equal(key(a), key(b))
}

// oneLine flattens a multi-line error for a message.
func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n\t", "; ")), " ")
}
