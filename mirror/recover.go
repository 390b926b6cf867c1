package mirror

// Recovery: an entry a killed run stored but never got into a signed
// catalog is read back from the store instead of downloaded again.

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/vsix"
)

// recover reuses an entry a killed run stored but did not get into a
// signed catalog: its blobs are read back from the store (no download) and
// verified like a fresh download. Looking for the entry takes no slot, so
// items that have nothing to recover never wait behind items being stored.
func (f *fetcher) recover(ctx context.Context, it *Item, files *itemFiles) (bool, error) {
	repo := artifact.Repo(it.ID)
	tag, err := artifact.Tag(it.Platform, it.Version)
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
	man, err := artifact.ParseManifest(raw)
	if err != nil || man.Digest != desc.Digest {
		f.log.Warn("stored manifest invalid; fetching again", "ext", it.String(), "err", err)
		return false, nil
	}
	vl, _ := man.Layer(artifact.RoleVsix)
	rf := itemFiles{meta: files.meta, upSum: man.Info.UpstreamSHA256}
	var (
		pub ed25519.PublicKey
		sig []byte
	)
	if sl, ok := man.Layer(artifact.RoleUpstreamSignature); ok {
		if rf.sigzip, err = readBlob(ctx, f.store, repo, sl.Digest, sl.Size, vsix.MaxSigzipBytes); err != nil {
			f.log.Warn("stored signature unreadable; fetching again", "ext", it.String(), "err", err)
			return false, nil
		}
		var reason string
		if pub, sig, reason, err = f.signature(ctx, &rf, it.Meta.Files["publicKey"]); err != nil || reason != "" {
			f.log.Warn("stored signature unusable; fetching again", "ext", it.String(), "reason", reason, "err", err)
			return false, nil
		}
	}
	// The vsix is hashed and its signature checked as it is copied out,
	// in a work slot: only this part costs CPU and temp space.
	release, err := acquire(ctx, f.work)
	if err != nil {
		return false, err
	}
	defer release()
	tmp, err := os.CreateTemp(f.tmpDir, "vsix-*")
	if err != nil {
		return false, err
	}
	df := newDigestFile(tmp, pub, sig)
	r, err := f.store.OpenBlob(ctx, repo, vl.Digest, vl.Size)
	if err == nil {
		_, err = io.Copy(df, r)
		r.Close()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		f.log.Warn("stored vsix unreadable; fetching again", "ext", it.String(), "err", err)
		return false, nil
	}
	rf.vsixPath, rf.vsixSize, rf.vsixSum, rf.sigOK = tmp.Name(), df.size(), df.sum(), df.signatureOK()
	*files = rf
	f.log.Info("resuming a stored entry", "ext", it.String())
	return true, nil
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
