package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/control"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
)

// snapshot is one verified catalog and the store it was read from,
// immutable once built: every request is answered from one snapshot.
type snapshot struct {
	// st is the store the snapshot was verified from, kept open to serve
	// its bytes; nil with Options.OpenPerRequest (Server.use).
	st store.Store
	// files says the store keeps each blob in a file (store.BlobFiler).
	files     bool
	cat       *index.Catalog
	digest    string    // sha256:<hex> of the catalog bytes
	timestamp []byte    // the timestamp.json it was verified from
	expires   time.Time // the earliest expiry of its metadata chain
	// exts maps an ID's key (lower case) to its entries in cat.Entries,
	// newest version first (the catalog's order); an extension the
	// control lists name malicious is not in it, nor in order and hay.
	exts map[string][]index.Entry
	// banned maps the key of each extension of the catalog the control
	// lists name malicious to their verdict: never offered, no byte of
	// it served, the verdict said instead.
	banned map[string]control.Verdict
	// control is the control lists the verified head pins (empty when it
	// pins none) and list their bytes as served at the control URL.
	control *control.Set
	list    controlList
	// order is every extension's entries, in the catalog's order (by ID).
	order [][]index.Entry
	// hay is, for each of order, the lower-cased text search looks in
	// (ID, display name, description, tags of its latest entry).
	hay []string
	// answers caches the extension JSON answered from this snapshot.
	answers answerCache
	// queries caches the gallery's answers to the query bodies asked
	// most (an editor's opening "popular" list, its update check).
	queries queryCache
	// gallery answers the VS Code gallery's queries; nil without one.
	gallery Gallery
	// site is the directory the static catalog was rendered into; ""
	// while it is not rendered.
	site atomic.Pointer[string]

	// refs counts the server's own reference (dropped when the snapshot
	// is replaced) and the requests in flight; the store is closed when
	// it drops to zero.
	refs    atomic.Int64
	closeMu sync.Once
	onClose func()
}

// errGoneBack is wrapped when a new catalog is older than the one served.
var errGoneBack = errors.New("catalog goes back")

// load opens the registry, verifies it from the anchor and the state as
// verify does, and builds a snapshot; prev, when not nil, is the
// snapshot being served, which the new catalog must not go back from. It
// returns (nil, nil) when the registry's timestamp is the one prev was
// verified from: nothing changed.
func (s *Server) load(ctx context.Context, prev *snapshot) (snap *snapshot, err error) {
	st, err := s.opts.Open(ctx)
	if err != nil {
		return nil, fmt.Errorf("open the registry: %w", err)
	}
	defer func() {
		if snap == nil {
			st.Close()
		}
	}()
	ts, err := st.ReadMetadata(ctx, trust.TimestampFile, trust.MaxTimestampBytes)
	if err != nil {
		return nil, fmt.Errorf("read the registry's timestamp: %w", err)
	}
	if prev != nil && bytes.Equal(ts, prev.timestamp) {
		return nil, nil
	}
	if prev != nil && s.refused.err != nil && bytes.Equal(ts, s.refused.timestamp) {
		return nil, s.refused.err
	}
	defer func() {
		if err != nil && ctx.Err() == nil {
			s.refused.timestamp, s.refused.err = ts, err
		}
	}()
	cat, c, err := trust.ReadVerified(ctx, st, s.opts.Anchor, trust.CheckOptions{State: s.opts.State, Now: s.opts.Now})
	if err != nil {
		return nil, err
	}
	set, err := readControl(ctx, c.Trusted, cat)
	if err != nil {
		return nil, err
	}
	// The timestamp read first may be older than the one the chain was
	// verified from (a sync in between): keep the verified one, so the
	// next poll compares with what is served.
	if v, err := st.ReadMetadata(ctx, trust.TimestampFile, trust.MaxTimestampBytes); err == nil {
		ts = v
	}
	if prev != nil {
		switch {
		case cat.Serial < prev.cat.Serial:
			return nil, fmt.Errorf("%w: serial %d is lower than the %d being served", errGoneBack, cat.Serial, prev.cat.Serial)
		case cat.Serial == prev.cat.Serial && c.CatalogDigest != prev.digest:
			return nil, fmt.Errorf("%w: serial %d is %s, the catalog being served of that serial is %s", errGoneBack, cat.Serial, c.CatalogDigest, prev.digest)
		}
		if was, now, ok := control.Older(prev.cat.Control, cat.Control); ok {
			return nil, fmt.Errorf("%w: its control list %s was fetched %s, before the %s of the list being served: a rolled-back list would serve what the newer one withdrew",
				errGoneBack, now.Origin, now.FetchedAt.Format(time.RFC3339), was.FetchedAt.Format(time.RFC3339))
		}
	}
	if _, err := c.Record(cat); err != nil {
		return nil, fmt.Errorf("record the verified registry in the state directory: %w", err)
	}
	snap, err = newSnapshot(st, cat, c.CatalogDigest, ts, set)
	if err != nil {
		return nil, err
	}
	snap.expires = c.Expires()
	_, snap.files = store.As[store.BlobFiler](st)
	if s.opts.OpenPerRequest {
		st.Close()
		snap.st = nil
	}
	if s.opts.Gallery != nil {
		snap.gallery = s.opts.Gallery(snap.offered())
	}
	return snap, nil
}

// newSnapshot indexes cat by ID, leaving out the extensions set names
// malicious. The snapshot holds one reference, the server's.
func newSnapshot(st store.Store, cat *index.Catalog, digest string, ts []byte, set *control.Set) (*snapshot, error) {
	list, err := newControlList(set)
	if err != nil {
		return nil, err
	}
	snap := &snapshot{st: st, cat: cat, digest: digest, timestamp: ts, exts: make(map[string][]index.Entry),
		banned: make(map[string]control.Verdict), control: set, list: list}
	es := cat.Entries
	for i := 0; i < len(es); {
		j := i + 1
		for j < len(es) && es[j].ID.Equal(es[i].ID) {
			j++
		}
		if v := set.Verdict(es[i].ID); v.Malicious {
			snap.banned[es[i].ID.Key()] = v
			i = j
			continue
		}
		snap.exts[es[i].ID.Key()] = es[i:j:j]
		snap.order = append(snap.order, es[i:j:j])
		snap.hay = append(snap.hay, haystack(pick(es[i:j:j], "latest", "")))
		i = j
	}
	snap.refs.Store(1)
	return snap, nil
}

// offered is the catalog without the extensions the control lists name
// malicious: what the gallery's query engine is built from. It is the
// catalog itself when none is.
func (sn *snapshot) offered() *index.Catalog {
	if len(sn.banned) == 0 {
		return sn.cat
	}
	c := *sn.cat
	c.Entries = make([]index.Entry, 0, len(sn.cat.Entries))
	for _, es := range sn.order {
		c.Entries = append(c.Entries, es...)
	}
	return &c
}

// use returns the store to read sn's bytes from and the function that
// releases it: the snapshot's own, or with Options.OpenPerRequest one
// opened for the caller.
func (s *Server) use(ctx context.Context, sn *snapshot) (store.Store, func(), error) {
	if sn.st != nil {
		return sn.st, func() {}, nil
	}
	st, err := s.opts.Open(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("open the registry: %w", err)
	}
	return st, func() { st.Close() }, nil
}

// release drops a reference; the last one closes the store.
func (sn *snapshot) release() {
	if sn.refs.Add(-1) == 0 {
		sn.closeMu.Do(func() {
			if sn.st != nil {
				sn.st.Close()
			}
			if sn.onClose != nil {
				sn.onClose()
			}
		})
	}
}

// extension returns the entries of ns.name, newest first; nil when the
// catalog has none.
func (sn *snapshot) extension(ns, name string) []index.Entry {
	return sn.exts[strings.ToLower(ns+"."+name)]
}

// acquire returns the snapshot being served with a reference the caller
// must release; nil once the server is closed.
func (s *Server) acquire() *snapshot {
	for {
		sn := s.cur.Load()
		if sn == nil {
			return nil
		}
		if sn.refs.Add(1) > 1 && s.cur.Load() == sn {
			return sn
		}
		sn.release()
	}
}

// swap serves next from now on and drops the server's reference to the
// snapshot it replaces.
func (s *Server) swap(next *snapshot) {
	if old := s.cur.Swap(next); old != nil {
		old.release()
	}
}

// Reload checks the place once: a new catalog is verified and, only then,
// served. It reports whether it swapped. An error leaves the snapshot
// being served as it was.
func (s *Server) Reload(ctx context.Context) (bool, error) {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	cur := s.acquire()
	if cur == nil {
		return false, ErrClosed
	}
	defer cur.release()
	next, err := s.load(ctx, cur)
	if err != nil || next == nil {
		return false, err
	}
	s.startSite(ctx, next, true)
	s.swap(next)
	s.log.Info("serving a new catalog", "serial", next.cat.Serial, "catalog", next.digest, "entries", len(next.cat.Entries), "previous", cur.cat.Serial)
	return true, nil
}

// Watch reloads every Options.Poll until ctx ends, logging what it
// refused; a registry that keeps failing is logged once per timestamp.
func (s *Server) Watch(ctx context.Context) {
	if s.opts.Poll < 0 {
		return
	}
	t := time.NewTicker(s.opts.Poll)
	defer t.Stop()
	var lastErr string
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		_, err := s.Reload(ctx)
		switch {
		case err == nil:
			lastErr = ""
		case ctx.Err() != nil, errors.Is(err, ErrClosed):
			return
		case err.Error() != lastErr:
			lastErr = err.Error()
			if cur := s.acquire(); cur != nil {
				s.log.Error("a new registry was refused; still serving the verified one", "err", err, "serial", cur.cat.Serial, "catalog", cur.digest)
				cur.release()
			}
		}
	}
}
