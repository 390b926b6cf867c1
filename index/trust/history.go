package trust

import (
	"context"
	"crypto"
	"errors"
	"fmt"

	"github.com/airvsx/airvsx/index/store"
)

// Errors of a registry kept as a signed history (store.History: a git
// store), wrapped by a *HistoryError.
var (
	// ErrHistorySignature: the revision read is not signed by one of the
	// keys its readers trust.
	ErrHistorySignature = errors.New("commit not signed by the registry's key")
	// ErrHistoryRewound: the revision read does not descend from the one
	// recorded before.
	ErrHistoryRewound = errors.New("history rewound")
)

// HistoryError is a revision of a signed history that breaks the commit
// rules (CheckRevision, Check). Err is ErrHistorySignature or
// ErrHistoryRewound.
type HistoryError struct {
	// Revision is the revision read (a commit ID).
	Revision string
	// Msg says what is wrong, naming the revision.
	Msg string
	Err error
}

func (e *HistoryError) Error() string { return e.Msg }
func (e *HistoryError) Unwrap() error { return e.Err }

// HistoryKeys returns the keys the revision of a signed history must be
// signed by under the anchor a, for every reader (verify, copy, install,
// ls, site): the anchor's key in key mode, the targets keys of the pinned
// root in root mode.
func HistoryKeys(a Anchor) ([]crypto.PublicKey, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	if a.Key != nil {
		pub, err := a.Key.PublicKey()
		if err != nil {
			return nil, fmt.Errorf("anchor key: %w", err)
		}
		return []crypto.PublicKey{pub}, nil
	}
	return RootRoleKeys(a.Root, "targets")
}

// CheckRevision applies the commit rule of a registry kept as a signed
// history (store.History: a git store) to the revision st reads: it must
// be signed by one of keys. It reads the revision's commit only, none of
// its content, so a reader runs it before anything else and never reads
// the tree of a commit no trusted key signed. Readers pass HistoryKeys of
// their anchor (Check does); a writer that adds a revision on top passes
// the keys the registry's root trusts for the targets role, so it never
// signs over a revision it did not make. It returns the revision; "" and
// nil for a store that keeps no history, or holds no revision yet (a new
// repository). The error is a *HistoryError wrapping ErrHistorySignature.
func CheckRevision(ctx context.Context, st store.Store, keys []crypto.PublicKey) (string, error) {
	h, ok := store.As[store.History](st)
	if !ok {
		return "", nil
	}
	rev := h.Revision()
	if rev == "" {
		return "", nil
	}
	if err := h.CheckSignature(ctx, keys); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", &HistoryError{Revision: rev, Err: ErrHistorySignature,
			Msg: fmt.Sprintf("%v; every commit of the registry must be signed by its key: a commit airvsx did not make is on top (git log --show-signature shows the history)", err)}
	}
	return rev, nil
}

// checkDescends checks that the revision rev of the signed history st
// descends from prev, the revision recorded before ("" for none): a
// *HistoryError wrapping ErrHistoryRewound when not.
func checkDescends(ctx context.Context, st store.Store, rev, prev string) error {
	h, ok := store.As[store.History](st)
	if !ok || prev == "" || rev == "" || prev == rev {
		return nil
	}
	ok, err := h.Descends(ctx, prev)
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return &HistoryError{Revision: rev, Err: ErrHistoryRewound,
			Msg: fmt.Sprintf("cannot tell whether commit %s descends from %s, the commit verified before: %v", rev, prev, err)}
	case !ok:
		return &HistoryError{Revision: rev, Err: ErrHistoryRewound,
			Msg: fmt.Sprintf("commit %s does not descend from %s, the commit verified before: the history was rewound or rewritten", rev, prev)}
	}
	return nil
}

// CheckBase is CheckRevision for a writer about to add a revision on top
// of the one st reads (sync, copy into a git store): keys are those the
// registry's root trusts for the targets role, and the writer's own. A
// revision none of them signed is refused, never signed over: the error
// (a *HistoryError) names it, and its parent when the store can say, and
// says what to do.
func CheckBase(ctx context.Context, st store.Store, keys []crypto.PublicKey) error {
	_, err := CheckRevision(ctx, st, keys)
	var he *HistoryError
	if !errors.As(err, &he) {
		return err
	}
	fix := "point the branch back at the last commit the registry's key signed (git update-ref refs/heads/BRANCH COMMIT)"
	if p, ok := st.(interface{ Parent() (string, error) }); ok {
		if parent, perr := p.Parent(); perr == nil && parent != "" {
			fix = fmt.Sprintf("if its parent %s is the last commit the registry's key signed, point the branch back at it (git update-ref refs/heads/BRANCH %s)", parent, parent)
		}
	}
	return &HistoryError{Revision: he.Revision, Err: he.Err,
		Msg: fmt.Sprintf("%s; no commit is added on top of it: inspect it (git show %s), %s, and run again", he.Msg, he.Revision, fix)}
}
