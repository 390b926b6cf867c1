package verify

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/airvsx/airvsx/index"
)

// stateFormat is the version of state.json.
const stateFormat = 1

// The files of one registry's state directory.
const (
	stateFile = "state.json"
	rootFile  = "root.json"
)

// savedState is the content of state.json.
type savedState struct {
	Format int `json:"format"`
	// Registry is the identity the directory is named after.
	Registry string      `json:"registry"`
	Trust    index.State `json:"trust"`
	// Serial and Digest are the last catalog that verified with its hash
	// chain intact; 0 and "" before the first.
	Serial  int64     `json:"catalogSerial"`
	Digest  string    `json:"catalogDigest"`
	Updated time.Time `json:"updated"`
}

// DefaultStateDir returns the user's state directory for airvsx:
// $XDG_STATE_HOME/airvsx, else ~/.local/state/airvsx.
func DefaultStateDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "airvsx"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("state directory: %w", err)
	}
	return filepath.Join(home, ".local", "state", "airvsx"), nil
}

// trust verifies the TUF chain and decodes the catalog. It returns a nil
// catalog (and no error) when the chain or the catalog does not verify;
// the problems are in the report.
func (v *registryVerifier) trust(ctx context.Context) (*index.Catalog, error) {
	meta := index.DirMetadata(filepath.Join(v.opts.Path, "metadata"))
	ts := &TrustSummary{Mode: "root"}
	v.rep.Trust = ts
	anchor := v.opts.Root
	var identity []byte
	if v.opts.Key != nil {
		ts.Mode = "key"
		first, err := readMeta(meta, "1.root.json", index.MaxRootBytes)
		if err != nil {
			v.trustProblems(err)
			return nil, nil
		}
		identity = first
	} else {
		identity = anchor
	}
	sum := sha256.Sum256(identity)
	id := hex.EncodeToString(sum[:])

	var saved savedState
	if v.opts.StateDir != "" {
		ts.StateDir = filepath.Join(v.opts.StateDir, "registries", id)
		s, root, err := loadState(ts.StateDir, id)
		if err != nil {
			return nil, err
		}
		saved = s
		ts.Previous = s.Trust
		if v.opts.Key != nil && root != nil {
			anchor = root
		}
	}
	if v.opts.Key != nil && anchor == nil {
		root, err := index.TrustOnFirstUse(ctx, meta, v.opts.Key)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			v.trustProblems(err)
			return nil, nil
		}
		anchor, ts.FirstUse = root, true
	}
	prev := saved.Trust
	tr, err := index.Load(ctx, meta, anchor, index.LoadOptions{Now: v.opts.Now, Previous: &prev})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		v.trustProblems(err)
		return nil, nil
	}
	ts.Verified = tr.State()
	catPath := "metadata/" + index.TargetsDir + "/" + strings.TrimPrefix(tr.CatalogDigest, "sha256:") + "." + index.CatalogTarget
	v.catPath = catPath
	cat, err := index.DecodeCatalog(bytes.NewReader(tr.Catalog))
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			v.add(Error, RuleCatalogInvalid, catPath, "", "%s", line)
		}
	}
	chainOK := cat != nil && v.checkChain(cat, tr.CatalogDigest, saved, catPath)
	if cat != nil {
		v.rep.Catalog = &CatalogSummary{Serial: cat.Serial, Digest: tr.CatalogDigest, Previous: cat.Previous,
			Created: cat.Created, Expires: tr.Timestamp.Expires, Entries: len(cat.Entries)}
	}
	// The chain verified: record it now, whatever the entries hold (see
	// the package comment, "State").
	if v.opts.StateDir != "" {
		next := savedState{Format: stateFormat, Registry: id, Trust: tr.State(), Serial: saved.Serial, Digest: saved.Digest, Updated: v.opts.Now().UTC()}
		if chainOK {
			next.Serial, next.Digest = cat.Serial, tr.CatalogDigest
		}
		var root []byte
		if v.opts.Key != nil {
			root = tr.RootJSON
		}
		if err := saveState(ts.StateDir, next, root); err != nil {
			return nil, err
		}
		ts.Recorded = true
	}
	return cat, nil
}

// checkChain compares the catalog with the one recorded: the serial never
// goes back, a serial names one catalog, and the next serial links to the
// recorded digest. It reports whether all held.
func (v *registryVerifier) checkChain(cat *index.Catalog, digest string, saved savedState, path string) bool {
	switch {
	case saved.Serial == 0:
		return true
	case cat.Serial < saved.Serial:
		v.add(Error, RuleCatalogRollback, path, "", "catalog serial %d is lower than the recorded %d (%s)", cat.Serial, saved.Serial, saved.Digest)
		return false
	case cat.Serial == saved.Serial && digest != saved.Digest:
		v.add(Error, RuleCatalogFork, path, "", "catalog serial %d is %s; the recorded catalog of that serial is %s", cat.Serial, digest, saved.Digest)
		return false
	case cat.Serial == saved.Serial+1 && cat.Previous != saved.Digest:
		prev := cat.Previous
		if prev == "" {
			prev = "(none)"
		}
		v.add(Error, RuleCatalogChain, path, "", "catalog serial %d: previous is %s; want %s, the recorded catalog of serial %d", cat.Serial, prev, saved.Digest, saved.Serial)
		return false
	}
	return true
}

// trustProblems turns an error of the trust chain into one problem per
// underlying error, each naming its metadata file.
func (v *registryVerifier) trustProblems(err error) {
	for _, e := range leaves(err) {
		rule := RuleTrustMalformed
		switch {
		case errors.Is(e, index.ErrSignature):
			rule = RuleTrustSignature
		case errors.Is(e, index.ErrExpired):
			rule = RuleTrustExpired
		case errors.Is(e, index.ErrRollback):
			rule = RuleTrustRollback
		case errors.Is(e, index.ErrMismatch):
			rule = RuleTrustMismatch
		case errors.Is(e, index.ErrMissing), errors.Is(e, fs.ErrNotExist):
			rule = RuleTrustMissing
		}
		msg := e.Error()
		path, rest, _ := strings.Cut(msg, ": ")
		if strings.HasPrefix(path, "metadata/") {
			msg = rest
		} else {
			path = "metadata/"
		}
		v.add(Error, rule, path, "", "%s", msg)
	}
}

// leaves flattens errors.Join trees.
func leaves(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, leaves(e)...)
		}
		return out
	}
	return []error{err}
}

// readMeta reads a metadata file of at most max bytes, with errors that
// name it like the index package's.
func readMeta(meta index.MetadataFS, name string, max int64) ([]byte, error) {
	rc, err := meta.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("metadata/%s: %w", name, index.ErrMissing)
	}
	if err != nil {
		return nil, fmt.Errorf("metadata/%s: %w", name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, max+1))
	if err != nil {
		return nil, fmt.Errorf("metadata/%s: %w", name, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("metadata/%s: larger than %d bytes: %w", name, max, index.ErrMalformed)
	}
	return b, nil
}

// loadState reads a registry's state directory; a missing one is the zero
// state. A damaged state file is an error: the verifier cannot run safely
// without knowing what it saw before.
func loadState(dir, id string) (savedState, []byte, error) {
	var s savedState
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return s, nil, fmt.Errorf("verify: state: %w", err)
	default:
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil || s.Format != stateFormat || s.Registry != id {
			return s, nil, fmt.Errorf("verify: state file %s is damaged or not for this registry (%v); remove it to start over", filepath.Join(dir, stateFile), err)
		}
	}
	root, err := os.ReadFile(filepath.Join(dir, rootFile))
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil, nil
	}
	if err != nil {
		return s, nil, fmt.Errorf("verify: state: %w", err)
	}
	return s, root, nil
}

// saveState writes state.json (and root.json when root is not nil)
// atomically: a temp file, fsynced, renamed.
func saveState(dir string, s savedState, root []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("verify: state: %w", err)
	}
	if root != nil {
		if err := writeAtomic(dir, rootFile, root); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(dir, stateFile, append(b, '\n'))
}

func writeAtomic(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return fmt.Errorf("verify: state: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("verify: state: write %s: %w", filepath.Join(dir, name), err)
	}
	return nil
}
