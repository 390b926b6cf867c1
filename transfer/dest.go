package transfer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/control"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
)

// rootFile matches the names of the versioned roots, N.root.json.
var rootFile = regexp.MustCompile(`^([1-9][0-9]*)\.root\.json$`)

// checkDest reads the destination's current state and refuses (unless
// Force) to overwrite another root's registry, a newer catalog, another
// catalog of the same serial, or metadata that does not verify.
func (c *copier) checkDest(ctx context.Context, src *checked) error {
	if c.dst == nil {
		return nil
	}
	first, err := c.dst.ReadMetadata(ctx, "1.root.json", trust.MaxRootBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return c.checkRoots(ctx, src) // nothing published there yet
	case err != nil && !errors.Is(err, store.ErrTooLarge):
		// Not read at all (unreachable, no permission): nothing to judge,
		// and --force would not help.
		return fmt.Errorf("copy: read %s: %w", c.opts.Dest, err)
	}
	var refusals []string
	if err == nil {
		srcFirst, serr := c.src.ReadMetadata(ctx, "1.root.json", trust.MaxRootBytes)
		if serr != nil {
			return fmt.Errorf("copy: %s: %w: %w", c.opts.Source, ErrSource, serr)
		}
		if !bytes.Equal(first, srcFirst) {
			refusals = append(refusals, c.otherRoot(ctx, src, first))
		}
	}
	if len(refusals) == 0 {
		// The same operator: compare the catalogs, read through the
		// destination's own chain (signatures and hashes; not expiry, so
		// an expired copy can be refreshed).
		cat, tr, err := c.readDest(ctx)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, trust.ErrNoCatalog):
		case err != nil:
			refusals = append(refusals, fmt.Sprintf("%s's metadata does not verify (%v)", c.opts.Dest, err))
		default:
			c.rep.DestSerial, c.rep.DestDigest = cat.Serial, tr.CatalogDigest
			switch {
			case cat.Serial > src.cat.Serial:
				refusals = append(refusals, fmt.Sprintf("%s holds catalog serial %d, newer than %s's serial %d: copying would roll it back",
					c.opts.Dest, cat.Serial, c.opts.Source, src.cat.Serial))
			case cat.Serial == src.cat.Serial && tr.CatalogDigest != src.CatalogDigest:
				refusals = append(refusals, fmt.Sprintf("%s holds catalog serial %d as %s; %s's serial %d is %s: a fork",
					c.opts.Dest, cat.Serial, tr.CatalogDigest, c.opts.Source, src.cat.Serial, src.CatalogDigest))
			case tr.Timestamp.Version > src.Timestamp.Version:
				refusals = append(refusals, fmt.Sprintf("%s's timestamp.json is version %d, newer than %s's version %d: copying would roll it back",
					c.opts.Dest, tr.Timestamp.Version, c.opts.Source, src.Timestamp.Version))
			}
			if was, now, ok := control.Older(cat.Control, src.cat.Control); ok {
				refusals = append(refusals, fmt.Sprintf("%s carries the control list %s fetched %s, newer than %s's (fetched %s): copying would roll the list back",
					c.opts.Dest, was.Origin, was.FetchedAt.Format(time.RFC3339), c.opts.Source, now.FetchedAt.Format(time.RFC3339)))
			}
		}
	}
	if len(refusals) > 0 && !c.opts.Force {
		return &OverwriteError{Refusals: refusals}
	}
	force := c.opts.ForceName
	if force == "" {
		force = "Force"
	}
	for _, r := range refusals {
		c.opts.Logger.Warn("overwriting the destination ("+force+")", "why", r)
		c.rep.Forced = append(c.rep.Forced, r)
	}
	return c.checkRoots(ctx, src)
}

// checkDestHistory refuses a destination kept as a signed history (a git
// store) whose revision, the one the copy's commit goes on top of, no key
// of the source's newest root for the targets role signed: a commit
// someone without the registry's key added (trust.CheckBase). Force does
// not override it: the copy would sign over a tree it did not write. It
// runs before anything of the destination's tree is read.
func (c *copier) checkDestHistory(ctx context.Context, src *checked) error {
	if c.dst == nil {
		return nil
	}
	keys, err := src.RoleKeys("targets")
	if err != nil {
		return fmt.Errorf("copy: %s: %w: %w", c.opts.Source, ErrSource, err)
	}
	if c.opts.SignKey != nil {
		keys = append(keys, c.opts.SignKey)
	}
	if err := trust.CheckBase(ctx, c.dst, keys); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("copy: %s: %w: %w", c.opts.Dest, err, ErrRefused)
	}
	return nil
}

// otherRoot describes a destination whose first root is not the
// source's, naming both roots' key IDs.
func (c *copier) otherRoot(ctx context.Context, src *checked, first []byte) string {
	theirs := "unreadable"
	if _, tr, err := trust.ReadCatalog(ctx, c.dst, trust.CatalogOptions{Root: first, Load: trust.LoadOptions{Now: func() time.Time { return time.Unix(1, 0) }}}); err == nil {
		theirs = strings.Join(tr.Root.KeyIDs, ",")
	} else if ids, err := trust.RootKeyIDs(first); err == nil {
		theirs = strings.Join(ids, ",")
	}
	return fmt.Sprintf("%s is signed by another root (root keys %s) than %s (root keys %s): another operator's registry",
		c.opts.Dest, theirs, c.opts.Source, strings.Join(src.Root.KeyIDs, ","))
}

// checkRoots refuses a destination holding a root version beyond the
// source's newest: the chain would follow it, and the copy would not
// verify. The copy cannot remove files; the operator can.
func (c *copier) checkRoots(ctx context.Context, src *checked) error {
	names, err := c.dst.ListMetadata(ctx)
	if err != nil {
		return fmt.Errorf("copy: %s: list metadata: %w", c.opts.Dest, err)
	}
	for _, n := range names {
		m := rootFile.FindStringSubmatch(n)
		if m == nil {
			continue
		}
		if v, err := strconv.ParseInt(m[1], 10, 64); err == nil && v > src.Root.Version {
			return fmt.Errorf("copy: %s holds metadata/%s, beyond %s's newest root (version %d); remove %s's metadata first: %w",
				c.opts.Dest, n, c.opts.Source, src.Root.Version, c.opts.Dest, ErrRefused)
		}
	}
	return nil
}

// OverwriteError is a copy refused because it would overwrite the
// destination unsafely (another operator's registry, a rollback, a fork,
// metadata that does not verify), each reason in Refusals; Options.Force
// overrides all of them. It wraps ErrRefused. The CLI words it with the
// flag that sets Force.
type OverwriteError struct {
	Refusals []string
}

func (e *OverwriteError) Error() string {
	return "copy: " + strings.Join(e.Refusals, "; ") + ": " + ErrRefused.Error()
}

// Unwrap returns ErrRefused.
func (e *OverwriteError) Unwrap() error { return ErrRefused }

// readDest reads the destination's catalog through its own chain
// (signatures and hashes; not expiry, so an expired copy can be
// refreshed), or returns what Apply read already.
func (c *copier) readDest(ctx context.Context) (*index.Catalog, *trust.Trusted, error) {
	if c.opts.dest != nil {
		return c.opts.dest.cat, c.opts.dest.tr, c.opts.dest.err
	}
	return trust.ReadOwnCatalog(ctx, c.dst)
}

// destRead is a destination's catalog as Apply read it: its head.
type destRead struct {
	cat *index.Catalog
	tr  *trust.Trusted
	err error
}
