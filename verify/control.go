package verify

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/control"
	"github.com/airvsx/airvsx/index/trust"
)

// The rules of the extension control lists (kill lists) a registry
// carries.
const (
	// RuleControlMalicious (an error): a list names the entry, or its
	// publisher, as malicious.
	RuleControlMalicious Rule = "control-malicious"
	// RuleControlDeprecated (a warning): a list names the entry as
	// deprecated; the message names its replacement.
	RuleControlDeprecated Rule = "control-deprecated"
	// RuleControlOverridden (a note): a list names the entry, and the
	// policy's control.allow overrides it; the message gives the reason.
	RuleControlOverridden Rule = "control-overridden"
	// RuleControlInvalid (an error): a list the catalog pins does not
	// parse (its bytes are the signed ones: it was signed malformed).
	RuleControlInvalid Rule = "control-invalid"
	// RuleControlNone (a warning): the registry carries no list and the
	// policy bounds the lists' age (control.maxAge). Without a bound the
	// report's catalog summary says so and nothing fails.
	RuleControlNone Rule = "control-none"
	// RuleControlStale (a warning): a list was fetched longer ago than
	// the policy's control.maxAge.
	RuleControlStale Rule = "control-stale"
)

// loadControl reads the control lists the head pins. A list missing or
// changed is a problem of the trust chain (it names the file); one that
// does not parse is RuleControlInvalid. None, or one older than the
// policy's bound, is said so.
func (v *registryVerifier) loadControl(ctx context.Context, chain *trust.Trusted, head *index.Catalog) {
	var maxAge time.Duration
	if v.opts.Policy != nil {
		maxAge = v.opts.Policy.Control.MaxAge
	}
	if len(head.Control) == 0 {
		if maxAge > 0 {
			v.add(Warning, RuleControlNone, v.catPath, "", "the registry carries no extension control list, and the policy's control.maxAge asks for one: extensions found malicious or deprecated upstream are not known here")
		}
		return
	}
	files, err := chain.Control(ctx, head)
	if err != nil {
		if errors.Is(err, trust.ErrMissing) || errors.Is(err, trust.ErrMismatch) {
			v.trustProblems(err)
		} else {
			v.add(Error, RuleControlInvalid, v.catPath, "", "%v", err)
		}
		return
	}
	var sources []control.Source
	v.controlPaths = map[string]string{}
	for _, f := range files {
		v.controlPaths[f.Ref.Origin] = trust.ControlPath(f.Ref)
		src, err := control.NewSource(f.Ref.Origin, f.Data)
		if err != nil {
			v.add(Error, RuleControlInvalid, trust.ControlPath(f.Ref), "", "%v", err)
			continue
		}
		sources = append(sources, src)
		v.controls = append(v.controls, ControlSummary{Origin: f.Ref.Origin, Source: f.Ref.Source, FetchedAt: f.Ref.FetchedAt, Digest: f.Ref.Digest,
			File: trust.ControlPath(f.Ref), Malicious: len(src.List.Malicious), Deprecated: len(src.List.Deprecated)})
	}
	v.control = control.NewSet(sources...)
	now := time.Now()
	if v.opts.Now != nil {
		now = v.opts.Now()
	}
	for _, r := range control.Stale(head.Control, now, maxAge) {
		v.add(Warning, RuleControlStale, trust.ControlPath(r), "", "the control list %s was fetched %s, longer ago than control.maxAge", r.Origin, r.FetchedAt.Format(time.RFC3339))
	}
}

// controlEntry reports what the control lists say of entry e.
func (v *registryVerifier) controlEntry(e *index.Entry, name string) {
	verdict := v.control.Verdict(e.ID)
	if !verdict.Listed() {
		return
	}
	path := v.controlPaths[verdict.Origin]
	if v.opts.Policy != nil {
		if a, ok := v.opts.Policy.Control.Allowed(e.ID.String()); ok {
			v.add(Note, RuleControlOverridden, path, name, "%s; the policy's control.allow overrides it: %s", verdict, a.Reason)
			return
		}
	}
	if verdict.Malicious {
		msg := verdict.String()
		if verdict.LearnMore != "" {
			msg += " (" + verdict.LearnMore + ")"
		}
		v.add(Error, RuleControlMalicious, path, name, "%s", msg)
		return
	}
	msg := verdict.String()
	if info := strings.TrimSpace(verdict.Deprecated.AdditionalInfo); info != "" {
		msg += ": " + info
	}
	v.add(Warning, RuleControlDeprecated, path, name, "%s", msg)
}
