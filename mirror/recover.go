package mirror

// Recovery: an entry a killed run stored but never got into a signed
// catalog is read back from the store instead of downloaded again.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/vsix"
)

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
