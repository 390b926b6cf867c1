package transfer

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"sync"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
)

// memo is the source store with its metadata files kept once read, so
// that the bytes the trust chain verified are the bytes copied, and no
// metadata file is read twice.
type memo struct {
	store.Store
	mu     sync.Mutex
	files  map[string][]byte
	frozen bool // keep no more files: only those the trust chain read
}

// freeze stops keeping files: those read from now on (the history the
// chain does not reach) are read again when written, rather than held.
func (m *memo) freeze() {
	m.mu.Lock()
	m.frozen = true
	m.mu.Unlock()
}

func newMemo(s store.Store) *memo { return &memo{Store: s, files: map[string][]byte{}} }

// The source's history (store.History), when it keeps one, so the trust
// check applies its commit rules (trust.Check): a memo of a store that
// keeps none has no revision.
var _ store.History = (*memo)(nil)

// Revision returns the source's revision; "" when it keeps no history.
func (m *memo) Revision() string {
	if h, ok := store.As[store.History](m.Store); ok {
		return h.Revision()
	}
	return ""
}

// CheckSignature checks the source's revision (store.History).
func (m *memo) CheckSignature(ctx context.Context, keys []crypto.PublicKey) error {
	if h, ok := store.As[store.History](m.Store); ok {
		return h.CheckSignature(ctx, keys)
	}
	return errors.New("the source keeps no history")
}

// Descends reports whether the source's revision descends from old
// (store.History).
func (m *memo) Descends(ctx context.Context, old string) (bool, error) {
	if h, ok := store.As[store.History](m.Store); ok {
		return h.Descends(ctx, old)
	}
	return false, errors.New("the source keeps no history")
}

// ReadMetadata returns the bytes read before, or reads and keeps them.
func (m *memo) ReadMetadata(ctx context.Context, name string, maxSize int64) ([]byte, error) {
	m.mu.Lock()
	b, ok := m.files[name]
	m.mu.Unlock()
	if ok {
		if int64(len(b)) > maxSize {
			return nil, fmt.Errorf("metadata %s: more than %d bytes: %w", name, maxSize, store.ErrTooLarge)
		}
		return b, nil
	}
	b, err := m.Store.ReadMetadata(ctx, name, maxSize)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	if !m.frozen {
		m.files[name] = b
	}
	m.mu.Unlock()
	return b, nil
}

// checked is the source's verified chain and catalog.
type checked struct {
	*trust.Checked
	cat *index.Catalog
}

// checkSource checks the source's chain from the anchor and its catalog
// against the recorded history, as verify does.
func (c *copier) checkSource(ctx context.Context) (*checked, error) {
	c.progress(Progress{Step: "plan"})
	ch, err := trust.Check(ctx, c.src, c.opts.Anchor, trust.CheckOptions{State: c.opts.State, Now: c.opts.Now})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("copy: %s: %w: %w", c.opts.Source, ErrSource, err)
	}
	var cat *index.Catalog
	if c.opts.dest != nil {
		cat, err = c.changedEntries(ctx, ch)
	} else {
		cat, err = ch.Decode(ctx)
	}
	if err == nil {
		err = ch.CheckCatalog(cat)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("copy: %s: %w: %w", c.opts.Source, ErrSource, err)
	}
	c.src.freeze()
	c.rep.Serial, c.rep.Digest, c.rep.Entries = cat.Serial, ch.CatalogDigest, cat.EntryCount()
	return &checked{Checked: ch, cat: cat}, nil
}

// checkSignKey refuses a signing key the source's newest root does not
// trust for the targets role (Options.SignKey): the destination would
// carry that root, and verify would reject every commit the key signed.
func (c *copier) checkSignKey(ch *trust.Checked) error {
	if c.opts.SignKey == nil {
		return nil
	}
	if err := trust.CheckSigningKey(c.opts.Source, ch.RootJSON, c.opts.SignKey, "targets"); err != nil {
		name := c.opts.SignKeyName
		if name == "" {
			name = "the signing key"
		}
		return fmt.Errorf("copy: %s: %w", name, err)
	}
	return nil
}

// CheckSignKey checks the source's trust chain from the anchor, as Copy
// does first, and that the source's newest root trusts opts.SignKey for
// the targets role (see Options.SignKey). It writes nothing, not even the
// state, and needs no destination: a caller that would create the
// destination runs it first, so that a wrong key leaves no new place
// behind. Errors are those of Copy's first steps; a key the root does not
// trust gives an error wrapping a *trust.KeyError.
func CheckSignKey(ctx context.Context, src store.Store, opts Options) error {
	if src == nil {
		return errors.New("copy: no source")
	}
	if (opts.Anchor.Root == nil) == (opts.Anchor.Key == nil) {
		return fmt.Errorf("copy: %w", trust.ErrNoAnchor)
	}
	if opts.Source == "" {
		opts.Source = "source"
	}
	c := &copier{opts: opts, src: newMemo(src), rawSrc: src, rep: &Report{}}
	ch, err := c.checkSource(ctx)
	if err != nil {
		return err
	}
	return c.checkSignKey(ch.Checked)
}
