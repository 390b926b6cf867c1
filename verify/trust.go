package verify

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"strings"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
)

// trust verifies the TUF chain from the anchor (index/trust.Check) and
// decodes the catalog file: a format-1 catalog with its entries, or a
// format-2 head, whose shards the caller streams (stream). It returns a
// nil head (and no error) when the chain or the catalog file does not
// verify; the problems are in the report and the chain, when it verified,
// is recorded. Otherwise the caller records it (record) once the entries
// are read. The error is for a run that cannot go on: a cancelled ctx or
// a state directory that cannot be read or written.
func (v *registryVerifier) trust(ctx context.Context) (*trust.Checked, *index.Catalog, error) {
	ts := &TrustSummary{Mode: v.opts.Anchor.Mode()}
	v.rep.Trust = ts
	// A registry kept as a signed history is checked as a history too
	// (trust.Check applies the commit rules every reader applies): a
	// broken rule is reported and the rest still checked, since a rewound
	// branch also rolls TUF back, and the report names both commits.
	if h, ok := store.As[store.History](v.st); ok {
		ts.Revision = h.Revision()
	}
	c, err := trust.Check(ctx, v.st, v.opts.Anchor, trust.CheckOptions{State: v.opts.State, Now: v.opts.Now, OnHistory: v.historyProblem})
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if errors.Is(err, trust.ErrState) || errors.Is(err, trust.ErrNoAnchor) || errors.Is(err, store.ErrUnreachable) {
			return nil, nil, err // nothing to judge: not a verdict
		}
		v.trustProblems(err)
		return nil, nil, nil
	}
	ts.FirstUse, ts.Previous, ts.Verified = c.FirstUse, c.Previous.Trust, c.State()
	v.chain = c.Trusted
	if v.opts.State != nil {
		ts.StateDir = v.opts.State.RegistryPath(c.ID)
	}
	v.catPath = trust.CatalogPath(c.CatalogDigest)
	head, err := index.DecodeCatalog(bytes.NewReader(c.Catalog))
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			v.add(Error, RuleCatalogInvalid, v.catPath, "", "%s", line)
		}
		return nil, nil, v.record(c, nil, 0)
	}
	return c, head, nil
}

// record summarizes the catalog and records the verified chain c in the
// state directory (see the package comment, "State"), whatever the
// entries hold. head is the catalog whose entries (n of them) were all
// read, nil when the catalog file or one of its shards was not: then
// neither the catalog's history is checked nor its serial recorded.
func (v *registryVerifier) record(c *trust.Checked, head *index.Catalog, n int) error {
	var chained *index.Catalog
	if head != nil {
		v.rep.Catalog = &CatalogSummary{Serial: head.Serial, Digest: c.CatalogDigest, Previous: head.Previous,
			Created: head.Created, Expires: c.Timestamp.Expires, Entries: n, Format: head.Format, Shards: len(head.Shards),
			Control: append([]ControlSummary{}, v.controls...)}
		if err := c.CheckCatalog(head); err != nil {
			rule := ruleFor(err, RuleCatalogChain, catalogRules)
			msg := err.Error()
			if fe := (*trust.FileError)(nil); errors.As(err, &fe) && fe.Msg != "" {
				msg = fe.Msg
			}
			v.add(Error, rule, v.catPath, "", "%s", msg)
		} else {
			chained = head
		}
	}
	dir, err := c.Record(chained)
	if err != nil {
		return err
	}
	v.rep.Trust.Recorded = dir != ""
	return nil
}

// shardProblem reports a shard of the head that could not be read: one
// that is missing or is not the bytes the head pins is a problem of the
// trust chain, one that does not decode an invalid catalog.
func (v *registryVerifier) shardProblem(ref index.ShardRef, err error) {
	if errors.Is(err, trust.ErrMissing) || errors.Is(err, trust.ErrMismatch) {
		v.trustProblems(err)
		return
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		v.add(Error, RuleCatalogInvalid, trust.ShardPath(ref), "", "%s", line)
	}
}

// trustProblems turns an error of the trust chain into one problem per
// underlying error, each naming its metadata file.
func (v *registryVerifier) trustProblems(err error) {
	if errors.Is(err, trust.ErrNoCatalog) {
		// One cause, one problem: the registry never published, so every
		// file the chain needs is missing.
		v.add(Error, RuleIncomplete, "metadata/"+trust.TimestampFile, "", "the registry was never completed: it has no signed catalog (the sync or copy that made it stopped before it signed one)")
		return
	}
	for _, e := range leaves(err) {
		rule := ruleFor(e, RuleTrustMalformed, trustRules)
		path, msg := "metadata/", e.Error()
		if fe, ok := e.(*trust.FileError); ok && fe.File != "" {
			path, msg = fe.File, fe.Reason()
		}
		v.add(Error, rule, path, "", "%s", msg)
	}
}

// errRule is the rule of the problems whose error matches err.
type errRule struct {
	err  error
	rule Rule
}

// The rules of the catalog's history and of the trust chain, by the
// sentinel error of index/trust each problem wraps.
var (
	catalogRules = []errRule{
		{trust.ErrCatalogRollback, RuleCatalogRollback},
		{trust.ErrCatalogFork, RuleCatalogFork},
	}
	trustRules = []errRule{
		{trust.ErrSignature, RuleTrustSignature},
		{trust.ErrExpired, RuleTrustExpired},
		{trust.ErrRollback, RuleTrustRollback},
		{trust.ErrMismatch, RuleTrustMismatch},
		{trust.ErrMissing, RuleTrustMissing},
		{fs.ErrNotExist, RuleTrustMissing},
	}
)

// ruleFor returns the rule of the first of rules whose error err matches
// (errors.Is), and def when it matches none.
func ruleFor(err error, def Rule, rules []errRule) Rule {
	for _, r := range rules {
		if errors.Is(err, r.err) {
			return r.rule
		}
	}
	return def
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

// historyProblem reports a commit of a registry kept as a signed history
// (a git store) that breaks the commit rules (trust.HistoryError): not
// signed by the anchor's key (in root mode, a targets key of the pinned
// root), or not descended from the commit verified before.
func (v *registryVerifier) historyProblem(err error) {
	rule, path := RuleHistorySignature, "commit"
	var he *trust.HistoryError
	if errors.As(err, &he) {
		path = "commit " + he.Revision
		if errors.Is(err, trust.ErrHistoryRewound) {
			rule = RuleHistoryRewound
		}
	}
	v.add(Error, rule, path, "", "%s", err)
}
