package mirror

// Fetching one item: take a download slot, fetch its files, then verify
// and store it in a work slot.

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/vsix"
	"github.com/airvsx/airvsx/mirror/openvsx"
	"github.com/airvsx/airvsx/policies"
)

// fetcher downloads, verifies and stores items. It is safe for concurrent
// use.
type fetcher struct {
	client *openvsx.Client
	store  store.Store
	pol    *policies.Policy
	tmpDir string
	// staging is tmpDir when the store can adopt files from it as blobs
	// (see store.Stager); nil otherwise.
	staging store.Staging
	log     *slog.Logger
	keys    *keyring
	// progress counts the packages that arrive; nil counts nothing.
	progress *progress
	// req bounds the requests in flight (the --concurrency); items bounds
	// the items being downloaded, more of them than requests so that every
	// request slot stays busy while some items wait for an answer; work
	// bounds verification and storing (which waits on fsync more than it
	// computes, so it is as wide as the requests), so a slow check never
	// holds a request slot.
	req, items, work chan struct{}
	// transfer bounds the package bodies being received and hashed at
	// once.
	transfer chan struct{}
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

// request runs do, which sends one request upstream (a pinned or known
// key sends none), in a request slot; what names it while it is in
// flight (Progress.InFlight).
func (f *fetcher) request(ctx context.Context, what string, do func() error) error {
	return f.requestCounted(ctx, what, false, func(*flight) error { return do() })
}

// requestCounted is request for a download whose bytes are counted on
// the flight do is given (when counted).
func (f *fetcher) requestCounted(ctx context.Context, what string, counted bool, do func(*flight) error) error {
	release, err := acquire(ctx, f.req)
	if err != nil {
		return err
	}
	defer release()
	fl, end := f.progress.begin(what, counted)
	defer end()
	return do(fl)
}

// files of one item, as fetched (or recovered from the store).
type itemFiles struct {
	vsixPath string // a temp file
	vsixSize int64
	vsixSum  string // lowercase hex
	upSum    string // upstream's .sha256, "" when recovered from the store
	sigzip   []byte
	sigOK    bool // the signature in sigzip verifies over the vsix (hashed as it was written)
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
	// A package that no registry could hold is refused before it is
	// downloaded (inspect reports the same rule).
	if err := artifact.CheckEntryName(it.ID, it.Version, it.Platform); err != nil {
		return index.Entry{}, f.reject(ctx, it, files, "cannot be stored in a registry: "+err.Error())
	}

	resumed, err := f.recover(ctx, it, files)
	if err != nil {
		return index.Entry{}, err
	}
	if !resumed {
		release, err := acquire(ctx, f.items)
		if err != nil {
			return index.Entry{}, err
		}
		reason, err := f.download(ctx, it, files)
		release()
		if files.vsixSum != "" { // the package arrived
			f.progress.downloaded(files.vsixSize)
		}
		if err != nil {
			return index.Entry{}, err
		} else if reason != "" {
			return index.Entry{}, f.reject(ctx, it, files, reason)
		}
	} else {
		f.progress.downloaded(files.vsixSize)
	}
	release, err := acquire(ctx, f.work)
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

// download asks where the package lives (sources), fetches its .sha256,
// its signature and the signing key, then the package itself, hashing it
// (and checking the signature) as it arrives. It returns a rejection
// reason for content that is wrong, and an error for failures to fetch.
func (f *fetcher) download(ctx context.Context, it *Item, files *itemFiles) (string, error) {
	m := it.Meta
	src, err := f.sources(ctx, it)
	if err != nil {
		return "", err
	}
	// What the download is checked against comes first, so that the
	// checks run on the bytes as they arrive: the .sha256, and the
	// signature with its key, fetched side by side (each in its own
	// request slot) so that an item's chain of requests is short.
	sumURL := src.sha256
	var (
		pub       ed25519.PublicKey
		sig       []byte
		sigReason string // why the signature cannot be checked
		sumErr    error
		sigErr    error
		wg        sync.WaitGroup
	)
	if sumURL != "" {
		wg.Go(func() {
			var sumText []byte
			sumErr = f.request(ctx, "sha256 of "+it.String(), func() (err error) {
				sumText, err = f.fetchSmall(ctx, sumURL, src.sha256Alt, 1024)
				return err
			})
			if sumErr != nil {
				sumErr = fmt.Errorf("fetch sha256 of %s: %w", it, sumErr)
			}
			files.upSum = strings.ToLower(strings.TrimSpace(string(sumText)))
		})
	}
	if sumURL != "" && src.signature != "" {
		wg.Go(func() {
			sigErr = f.request(ctx, "signature of "+it.String(), func() (err error) {
				files.sigzip, err = f.fetchSmall(ctx, src.signature, src.signatureAlt, vsix.MaxSigzipBytes)
				return err
			})
			if sigErr != nil {
				sigErr = fmt.Errorf("fetch signature of %s: %w", it, sigErr)
				return
			}
			pub, sig, sigReason, sigErr = f.signature(ctx, files, m.Files["publicKey"])
		})
	}
	wg.Wait()
	if err := cmp.Or(sumErr, sigErr); err != nil {
		return "", err
	}

	tmp, err := os.CreateTemp(f.tmpDir, "vsix-*")
	if err != nil {
		return "", err
	}
	files.vsixPath = tmp.Name()
	df := newDigestFile(tmp, pub, sig)
	// The body is hashed as it arrives, which costs CPU: a transfer
	// slot keeps to one body per CPU at a time, so each finishes (and
	// frees its request slot) sooner than when all share the CPUs.
	release := func() {}
	df.gate = func() (err error) {
		release, err = acquire(ctx, f.transfer)
		return err
	}
	err = f.requestCounted(ctx, it.String(), true, func(fl *flight) error {
		df.flight = fl
		_, err := f.client.Download(ctx, src.download, f.pol.MaxVsixBytes, df)
		return err
	})
	release()
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, openvsx.ErrTooLarge) {
		return fmt.Sprintf("the download is larger than maxVsixBytes (%d)", f.pol.MaxVsixBytes), nil
	}
	if err != nil {
		return "", fmt.Errorf("download %s: %w", it, err)
	}
	files.vsixSize, files.vsixSum = df.size(), df.sum()
	files.sigOK = df.signatureOK()
	switch {
	case sumURL == "":
		return "upstream published no sha256 for it", nil
	case files.upSum != files.vsixSum:
		return fmt.Sprintf("sha256 mismatch: upstream's .sha256 says %q, the download hashes to %s", truncate(files.upSum, 80), files.vsixSum), nil
	}
	return sigReason, nil
}

// signature reads the signature out of files.sigzip and gets the key
// keyURL names (pinned, or fetched once). It returns a rejection reason
// when either is unusable, and an error for failures to fetch.
func (f *fetcher) signature(ctx context.Context, files *itemFiles, keyURL string) (ed25519.PublicKey, []byte, string, error) {
	if keyURL == "" {
		return nil, nil, "upstream lists a signature but no public key", nil
	}
	files.keyID = keyIDFromURL(keyURL)
	var pub ed25519.PublicKey
	err := f.request(ctx, "upstream key "+files.keyID, func() (err error) {
		pub, err = f.keys.get(ctx, f.client, files.keyID, keyURL)
		return err
	})
	var kerr *keyError
	if errors.As(err, &kerr) {
		return nil, nil, kerr.Error(), nil
	}
	if err != nil {
		return nil, nil, "", err
	}
	sig, err := vsix.ReadSigzipSignature(files.sigzip)
	if err != nil {
		return nil, nil, "upstream signature: " + err.Error(), nil
	}
	return pub, sig, "", nil
}
