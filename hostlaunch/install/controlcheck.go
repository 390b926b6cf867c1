package install

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sigstore/sigstore/pkg/cryptoutils"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/control"
	"github.com/airvsx/airvsx/index/problem"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/policies"
)

// ControlOverride is an extension installed although a control list names
// it, because the policy's control.allow overrides the list for it.
type ControlOverride struct {
	ID      string `json:"id"`
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
}

// ControlStateOf reads the control lists the verified catalog head pins
// (through chain) into a ControlState for the registry place and anchor,
// ready for an extensions directory to enforce. A head that pins none
// gives a state with no lists.
func ControlStateOf(ctx context.Context, chain *trust.Trusted, head *index.Catalog, digest, place string, anchor trust.Anchor) (*ControlState, error) {
	files, err := chain.Control(ctx, head)
	if err != nil {
		return nil, err
	}
	st := &ControlState{Registry: place, Serial: head.Serial, CatalogDigest: digest, Lists: []ControlList{}, RootJSON: anchor.Root}
	st.Registry = absPlace(place)
	if anchor.Key != nil {
		pub, err := anchor.Key.PublicKey()
		if err != nil {
			return nil, err
		}
		pem, err := cryptoutils.MarshalPublicKeyToPEM(pub)
		if err != nil {
			return nil, err
		}
		st.KeyPEM = string(pem)
	}
	for _, f := range files {
		st.Lists = append(st.Lists, ControlList{Ref: f.Ref, Data: f.Data})
	}
	if _, err := st.Set(); err != nil {
		return nil, err
	}
	return st, nil
}

// absPlace makes a directory place, or a git: place's path, absolute,
// so that run and list find the registry from any directory; a
// docker:// place is kept as given.
func absPlace(place string) string {
	path, prefix := place, ""
	switch {
	case strings.HasPrefix(place, "docker://"):
		return place
	case strings.HasPrefix(place, "git:"):
		prefix, path = "git:", strings.TrimPrefix(place, "git:")
	}
	ref := ""
	if prefix != "" {
		if i := strings.LastIndex(path, "#"); i >= 0 {
			path, ref = path[:i], path[i:]
		}
	}
	if filepath.IsAbs(path) {
		return place
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return place
	}
	return prefix + abs + ref
}

// loadControl reads the verified catalog's control lists and decides
// which lists the install enforces: the registry's, unless they are older
// than those the directory enforces (refused: a rollback), or the
// directory's when the registry carries none.
func (in *installer) loadControl(ctx context.Context, anchorCatDigest string) error {
	next, err := ControlStateOf(ctx, in.chain, in.cat, anchorCatDigest, in.reg.Place, in.reg.Anchor)
	if err != nil {
		return &RefusedError{What: "install", Problems: []problem.Problem{refusal("registry %s: control list: %v", in.reg.Place, err)}}
	}
	cur, err := readControl(in.d.path, in.d.key)
	if err != nil {
		in.opts.Logger.Warn("the extensions directory's control lists are not used", "err", err)
		cur = nil
	}
	switch {
	case len(next.Lists) > 0:
		if err := cur.CheckNewer(next); err != nil {
			return &RefusedError{What: "install", Problems: []problem.Problem{refusal("registry %s: %v", in.reg.Place, err)}}
		}
		in.newControl = next
		in.enforce = next
	case cur != nil:
		in.enforce = cur
	}
	if in.enforce != nil {
		if in.controlSet, err = in.enforce.Set(); err != nil {
			return err
		}
	}
	if in.opts.Policy != nil && in.opts.Policy.Control.MaxAge > 0 {
		switch maxAge := in.opts.Policy.Control.MaxAge; {
		case in.enforce == nil:
			in.opts.Logger.Warn("no extension control list: the registry carries none, and the policy's control.maxAge asks for one", "registry", in.reg.Place)
		default:
			for _, r := range control.Stale(in.enforce.Refs(), in.opts.Now(), maxAge) {
				in.opts.Logger.Warn("stale extension control list: fetched longer ago than the policy's control.maxAge", "origin", r.Origin, "fetched_at", r.FetchedAt, "max_age", maxAge)
			}
		}
	}
	return nil
}

// checkControl refuses id when a control list names it malicious, or
// deprecated with install disallowed, unless the policy's control.allow
// overrides the list for it (logged, and recorded in the result); a
// deprecation that allows the install is a warning naming the
// replacement.
func (in *installer) checkControl(id index.ID, what string) error {
	v := in.controlSet.Verdict(id)
	if !v.Listed() {
		return nil
	}
	var pol policies.Control
	if in.opts.Policy != nil {
		pol = in.opts.Policy.Control
	}
	if a, ok := pol.Allowed(id.String()); ok {
		in.opts.Logger.Warn("control list overridden by the policy", "ext", id.String(), "verdict", v.String(), "reason", a.Reason)
		in.overrides = append(in.overrides, ControlOverride{ID: id.String(), Verdict: v.String(), Reason: a.Reason})
		return nil
	}
	if !v.Refuses() {
		in.opts.Logger.Warn("deprecated", "ext", id.String(), "verdict", v.String())
		return nil
	}
	rule := problem.Rule("control-malicious")
	if !v.Malicious {
		rule = "control-deprecated"
	}
	return &RefusedError{What: what, Problems: []problem.Problem{{Severity: problem.Error, Rule: rule,
		Message: fmt.Sprintf("%s (to install it all the same, add - {id: %s, reason: WHY} to the policy's control.allow and install it with that policy)", v, id)}}}
}

// saveControl makes the lists the install enforces, and the overrides it
// installed under, those the directory enforces.
func (in *installer) saveControl() error {
	st := in.newControl
	if st == nil {
		st = in.enforce
	}
	if st == nil {
		return nil
	}
	cur, err := readControl(in.d.path, in.d.key)
	if err != nil {
		cur = nil
	}
	next := *st
	if cur != nil {
		next.Allow = cur.Allow
	}
	next = next.withAllow(in.overrides)
	if cur != nil && cur.CatalogDigest == next.CatalogDigest && bytes.Equal(mustJSON(cur.Allow), mustJSON(next.Allow)) {
		return nil
	}
	return in.d.writeControl(next)
}
