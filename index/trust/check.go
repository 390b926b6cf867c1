package trust

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
)

// Errors of the catalog's own history, found by comparing it with what
// the state directory recorded (Checked.CheckCatalog).
var (
	// ErrCatalogRollback: the catalog's serial is lower than recorded.
	ErrCatalogRollback = errors.New("catalog rollback")
	// ErrCatalogFork: the recorded serial names another catalog.
	ErrCatalogFork = errors.New("catalog fork")
	// ErrCatalogChain: the next serial does not link to the recorded one.
	ErrCatalogChain = errors.New("catalog chain broken")
)

// CheckOptions configure Check. The zero value checks expiry against the
// current time and keeps no state.
type CheckOptions struct {
	// State is read to detect rollback and to find the root saved by an
	// earlier run; Check never writes it (Checked.Record does). Default
	// nil: no state, so a rollback the registry itself cannot show goes
	// unnoticed.
	State *StateDir
	// Now is the clock expiry is checked against. Default nil: time.Now.
	Now func() time.Time
	// OnHistory, when set, is given the *HistoryError of a registry kept
	// as a signed history whose revision breaks the commit rules, and the
	// check goes on (verify, which reports every problem). Default nil:
	// Check fails with it before it reads any of the revision's content.
	OnHistory func(error)
}

// Checked is a registry's trust chain, verified from the operator's
// anchor.
type Checked struct {
	*Trusted
	// Anchor is the anchor the chain was verified from.
	Anchor Anchor
	// ID is the registry's identity in the state directory: the hex
	// sha256 of the root the chain starts from (the pinned root, or the
	// registry's 1.root.json in key mode).
	ID string
	// FirstUse says that key mode trusted the registry's 1.root.json with
	// no earlier record of it in the state directory.
	FirstUse bool
	// Previous is what the state directory held before this run (the
	// zero value without state or for a registry never seen).
	Previous RegistryState
	// Revision is the revision of a signed history (a git commit) that
	// passed the commit rules; Record saves it. "" for other registries,
	// or when a rule failed (OnHistory): Record keeps the one recorded
	// before.
	Revision string

	state *StateDir
	keyID string
	now   func() time.Time
}

// Check verifies a registry's trust chain from the anchor a, checking the
// anchor itself on every run:
//
//   - key mode: the registry's 1.root.json must be signed by a.Key (when
//     it is not and the state recorded the registry under another key,
//     the error names both key IDs); the chain runs from it;
//   - root mode: the chain runs from a.Root, and the registry's own root
//     of that version must be the same bytes (the pinned root is on the
//     chain);
//   - with state: the versions recorded before must not go back, and the
//     root saved by an earlier run must be on the chain (byte for byte at
//     its version), so a registry with a rewritten root history fails;
//   - a registry kept as a signed history (store.History: a git store):
//     the revision read must be signed by HistoryKeys(a), checked first,
//     before any of its content is read (CheckRevision), and with state
//     it must descend from the revision recorded before. Every reader of
//     a git registry goes through these commit rules here.
//
// Errors about the registry wrap ErrSignature, ErrExpired, ErrRollback,
// ErrMismatch, ErrMissing or ErrMalformed (ErrNoCatalog too, with
// ErrMissing, when it never published); errors of the state directory
// wrap ErrState; those of the commit rules are a *HistoryError.
func Check(ctx context.Context, st store.Store, a Anchor, opts CheckOptions) (*Checked, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	// history fails the check with a broken commit rule, or hands it to
	// OnHistory; it reports whether the check goes on.
	history := func(err error) error {
		if opts.OnHistory == nil || ctx.Err() != nil {
			return err
		}
		opts.OnHistory(err)
		return nil
	}
	var rev string
	if h, ok := store.As[store.History](st); ok {
		keys, err := HistoryKeys(a)
		if err == nil {
			rev, err = CheckRevision(ctx, st, keys)
		} else {
			err = &HistoryError{Revision: h.Revision(), Err: ErrHistorySignature,
				Msg: fmt.Sprintf("commit %s: no key to check its signature against: %v", h.Revision(), err)}
		}
		if err != nil {
			if err := history(err); err != nil {
				return nil, err
			}
			rev = ""
		}
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	meta := Metadata(ctx, st)
	c := &Checked{Anchor: a, state: opts.State, now: now}
	start := a.Root
	if a.Key != nil {
		id, err := a.KeyID()
		if err != nil {
			return nil, err
		}
		c.keyID = id
		raw, err := readCapped(meta, rootName(1), MaxRootBytes, ErrMalformed)
		if err != nil {
			return nil, neverPublished(ctx, st, err)
		}
		c.ID = identity(raw)
		root, err := firstRoot(raw, a.Key)
		if err != nil {
			return nil, c.otherKey(err)
		}
		start = root
	} else {
		c.ID = identity(a.Root)
	}
	var saved []byte
	if c.state != nil {
		s, root, err := c.state.Load(c.ID)
		if err != nil {
			return nil, err
		}
		c.Previous, saved = s, root
	}
	if err := checkDescends(ctx, st, rev, c.Previous.Revision); err != nil {
		if err := history(err); err != nil {
			return nil, err
		}
		rev = ""
	}
	c.Revision = rev
	c.FirstUse = a.Key != nil && c.Previous.Trust.Root == 0
	prev := c.Previous.Trust
	tr, err := Load(ctx, meta, start, LoadOptions{Now: now, Previous: &prev})
	if err != nil {
		return nil, neverPublished(ctx, st, err)
	}
	c.Trusted = tr
	if a.Root != nil {
		name := a.RootName
		if name == "" {
			name = "the pinned root"
		}
		if err := onChain(meta, a.Root, name); err != nil {
			return nil, err
		}
	}
	if saved != nil {
		if err := onChain(meta, saved, "the root saved in "+c.state.RegistryPath(c.ID)); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// neverPublished turns a missing-file error into the one for a registry
// that never published (no timestamp.json), which also wraps
// ErrNoCatalog; the timestamp is looked for only when a file was missing.
func neverPublished(ctx context.Context, st store.Store, err error) error {
	if !errors.Is(err, ErrMissing) {
		return err
	}
	if _, terr := st.ReadMetadata(ctx, TimestampFile, MaxTimestampBytes); errors.Is(terr, fs.ErrNotExist) {
		return &FileError{File: displayName(TimestampFile), Err: fmt.Errorf("%w (%w)", ErrMissing, ErrNoCatalog)}
	}
	return err
}

// otherKey adds to a key-mode failure the key the state recorded for the
// registry, when that is another key.
func (c *Checked) otherKey(err error) error {
	if !errors.Is(err, ErrSignature) {
		return err
	}
	msg := fmt.Sprintf("not signed by the given key %s", c.keyID)
	if c.state != nil {
		if s, _, serr := c.state.Load(c.ID); serr == nil && s.AnchorKeyID != "" && s.AnchorKeyID != c.keyID {
			msg += fmt.Sprintf("; %s recorded this registry as verified with key %s", c.state.RegistryPath(c.ID), s.AnchorKeyID)
		}
	}
	reason := err.Error()
	var fe *FileError
	if errors.As(err, &fe) && fe.Err == ErrSignature && fe.Msg != "" {
		reason = fe.Msg
		if fe.File != displayName(rootName(1)) {
			reason = fe.File + ": " + fe.Msg
		}
	}
	return fileError(rootName(1), ErrSignature, "%s (%s)", msg, reason)
}

// onChain checks that root (pinned or saved) is the registry's own root of
// its version, byte for byte; Load has verified every root of the chain.
func onChain(meta MetadataFS, root []byte, what string) error {
	r, err := parseRoot("root", root)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	name := rootName(r.Signed.Version)
	got, err := readCapped(meta, name, MaxRootBytes, ErrMalformed)
	if err != nil {
		return fmt.Errorf("%s (version %d) is not on the registry's chain: %w", what, r.Signed.Version, err)
	}
	if !bytes.Equal(got, root) {
		return fileError(name, ErrMismatch, "%s (version %d) is not on the registry's chain: %s differs",
			what, r.Signed.Version, displayName(name))
	}
	return nil
}

func identity(root []byte) string { return index.SHA256Hex(root) }

// ReadVerified is Check for commands that only read (site, ls): the
// chain from the anchor, then the catalog decoded and checked against the
// history the state recorded (CheckCatalog). It records nothing.
func ReadVerified(ctx context.Context, st store.Store, a Anchor, opts CheckOptions) (*index.Catalog, *Checked, error) {
	_, c, err := OpenVerified(ctx, st, a, opts)
	if err != nil {
		return nil, nil, err
	}
	cat, err := c.Decode(ctx)
	if err != nil {
		return nil, nil, err
	}
	return cat, c, nil
}

// OpenVerified is ReadVerified without the entries: it returns the
// catalog's head (a format-1 catalog whole), checked against the
// recorded history, for a reader that then reads only the shards it needs
// (Trusted.Lookup, Trusted.Shard).
func OpenVerified(ctx context.Context, st store.Store, a Anchor, opts CheckOptions) (*index.Catalog, *Checked, error) {
	c, err := Check(ctx, st, a, opts)
	if err != nil {
		return nil, nil, err
	}
	head, err := c.Head()
	if err != nil {
		return nil, nil, err
	}
	if err := c.CheckCatalog(head); err != nil {
		return nil, nil, err
	}
	return head, c, nil
}

// CheckCatalog compares the catalog with the one the state recorded: the
// serial never goes back, a serial names one catalog, and the next serial
// links to the recorded digest. Errors wrap ErrCatalogRollback,
// ErrCatalogFork or ErrCatalogChain.
func (c *Checked) CheckCatalog(cat *index.Catalog) error {
	saved, digest := c.Previous, c.CatalogDigest
	switch {
	case saved.Serial == 0:
	case cat.Serial < saved.Serial:
		return &FileError{Msg: fmt.Sprintf("catalog serial %d is lower than the recorded %d (%s)", cat.Serial, saved.Serial, saved.Digest), Err: ErrCatalogRollback}
	case cat.Serial == saved.Serial && digest != saved.Digest:
		return &FileError{Msg: fmt.Sprintf("catalog serial %d is %s; the recorded catalog of that serial is %s", cat.Serial, digest, saved.Digest), Err: ErrCatalogFork}
	case cat.Serial == saved.Serial+1 && cat.Previous != saved.Digest:
		prev := cat.Previous
		if prev == "" {
			prev = "(none)"
		}
		return &FileError{Msg: fmt.Sprintf("catalog serial %d: previous is %s; want %s, the recorded catalog of serial %d", cat.Serial, prev, saved.Digest, saved.Serial), Err: ErrCatalogChain}
	}
	return nil
}

// Record saves the verified chain in the state directory: the TUF
// versions and the newest root always (a chain that verified is recorded
// whatever the entries hold, so damaging one blob cannot stop newer
// versions from being recorded), the catalog's serial and digest only
// when cat is not nil (pass the catalog only when CheckCatalog held). It
// does nothing without a state directory and returns where it wrote.
func (c *Checked) Record(cat *index.Catalog) (string, error) {
	if c.state == nil {
		return "", nil
	}
	next := RegistryState{Registry: c.ID, Trust: c.State(), Serial: c.Previous.Serial, Digest: c.Previous.Digest,
		AnchorKeyID: c.keyID, Revision: c.Previous.Revision, Updated: c.now().UTC()}
	if c.Revision != "" {
		next.Revision = c.Revision
	}
	if cat != nil {
		next.Serial, next.Digest = cat.Serial, c.CatalogDigest
	}
	if err := c.state.Save(next, c.RootJSON); err != nil {
		return "", err
	}
	return c.state.RegistryPath(c.ID), nil
}

// Expires is the earliest expiry of the verified chain.
func (t *Trusted) Expires() time.Time {
	e := t.Timestamp.Expires
	for _, r := range []RoleInfo{t.Root, t.Snapshot, t.Targets} {
		if r.Expires.Before(e) {
			e = r.Expires
		}
	}
	return e
}
