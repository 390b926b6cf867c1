package policies

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/airvsx/airvsx/index"
)

// validator collects every semantic problem of one file.
type validator struct {
	name string
	errs []error
}

func (v *validator) add(at pos, field, format string, args ...any) {
	v.errs = append(v.errs, &Error{File: v.name, Line: at.line, Column: at.col, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// validate checks the decoded file against the rules in the package
// documentation and fills in defaults.
func (d *rawDoc) validate(name string) (*Policy, error) {
	v := &validator{name: name}
	p := &Policy{
		Version:                  FormatVersion,
		Dependencies:             d.Dependencies.v,
		RequireUpstreamSignature: d.RequireUpstreamSignature.v,
		MaxVsixBytes:             DefaultMaxVsixBytes,
		CatalogExpires:           DefaultCatalogExpires,
	}

	switch {
	case !d.Version.set:
		v.add(pos{}, "version", "missing (want version: %d)", FormatVersion)
	case d.Version.v != FormatVersion:
		v.add(d.Version.at, "version", "unsupported format version %d (want %d)", d.Version.v, FormatVersion)
	}

	if d.Upstream.set {
		if err := checkUpstream(d.Upstream.v); err != nil {
			v.add(d.Upstream.at, "upstream", "%v", err)
		}
		p.Upstream = d.Upstream.v
	}

	if d.Editor.set {
		ed, err := index.ParseVersion(d.Editor.v)
		if err != nil {
			v.add(d.Editor.at, "editor", "%v (want an exact version such as 1.95.0)", err)
		}
		p.Editor = ed
	}

	p.Platforms = slices.Clone(DefaultPlatforms)
	if d.Platforms.set {
		p.Platforms = nil
		if len(d.Platforms.v) == 0 {
			v.add(d.Platforms.at, "platforms", "empty list (omit the field for [universal])")
		}
		for i, s := range d.Platforms.v {
			field := fmt.Sprintf("platforms[%d]", i)
			pl, err := index.ParsePlatform(s.v)
			switch {
			case s.v == "" || err != nil:
				v.add(s.at, field, "unknown target platform %q (want one of %v)", s.v, index.Platforms)
			case slices.Contains(p.Platforms, pl):
				v.add(s.at, field, "duplicate platform %s", pl)
			default:
				p.Platforms = append(p.Platforms, pl)
			}
		}
	}

	if len(d.Extensions.v) == 0 {
		v.add(d.Extensions.at, "extensions", "no rules (want at least one, e.g. - id: redhat.java)")
	}
	for i, r := range d.Extensions.v {
		p.Extensions = append(p.Extensions, v.rule(fmt.Sprintf("extensions[%d]", i), r))
	}

	for i, s := range d.Exclude.v {
		if pat, ok := parse(v, fmt.Sprintf("exclude[%d]", i), s, ParsePattern); ok {
			p.Exclude = append(p.Exclude, pat)
		}
	}

	if d.MaxVsixBytes.set {
		if d.MaxVsixBytes.v <= 0 {
			v.add(d.MaxVsixBytes.at, "maxVsixBytes", "must be positive, have %d", d.MaxVsixBytes.v)
		} else {
			p.MaxVsixBytes = d.MaxVsixBytes.v
		}
	}

	for i, r := range d.Capabilities.v {
		p.CapabilityRules = append(p.CapabilityRules, v.capRule(fmt.Sprintf("capabilities[%d]", i), r))
	}

	if d.Catalog.Expires.set {
		if exp, ok := parse(v, "catalog.expires", d.Catalog.Expires, ParseExpiry); ok {
			p.CatalogExpires = exp
		}
	}

	p.Control = v.control(d.Control)

	if len(v.errs) > 0 {
		// In file order; problems with no place (missing fields) first.
		slices.SortStableFunc(v.errs, func(a, b error) int {
			x, y := a.(*Error), b.(*Error)
			return cmp.Or(cmp.Compare(x.Line, y.Line), cmp.Compare(x.Column, y.Column))
		})
		return nil, errors.Join(v.errs...)
	}
	return p, nil
}

func (v *validator) pattern(at pos, field string, s yStr) Pattern {
	if !s.set {
		v.add(at, field, "missing (want an extension ID, ns.* or a glob)")
		return Pattern{}
	}
	pat, _ := parse(v, field, s, ParsePattern)
	return pat
}

func (v *validator) constraint(field string, s yStr) Constraint {
	if !s.set {
		return Constraint{}
	}
	if s.v == "" {
		v.add(s.at, field, "empty constraint (omit the field or write \"*\" for any version)")
		return Constraint{}
	}
	c, _ := parse(v, field, s, ParseConstraint)
	return c
}

func (v *validator) rule(field string, r rawRule) Rule {
	out := Rule{
		ID:         v.pattern(r.at, field+".id", r.ID),
		Versions:   v.constraint(field+".versions", r.Versions),
		Latest:     1,
		PreRelease: r.PreRelease.v,
	}
	switch l := r.Latest; {
	case !l.set:
	case l.all:
		out.Latest = LatestAll
	case l.n < 1 || l.n > math.MaxInt32:
		v.add(l.at, field+".latest", "must be between 1 and %d or all, have %d", math.MaxInt32, l.n)
	default:
		out.Latest = int(l.n)
	}
	return out
}

func (v *validator) capRule(field string, r rawCapRule) CapabilityRule {
	out := CapabilityRule{
		ID:       v.pattern(r.at, field+".id", r.ID),
		Versions: v.constraint(field+".versions", r.Versions),
		Grant:    v.capabilities(field+".grant", r.Grant.v),
		Declare:  v.capabilities(field+".declare", r.Declare.v),
	}
	if len(r.Grant.v) == 0 && len(r.Declare.v) == 0 {
		v.add(r.at, field, "neither grant nor declare lists a capability")
	}
	out.Hosts = v.list(field+".hosts", r.Hosts, out.Grant, index.Network, "hosts", ParseHost)
	out.Programs = v.list(field+".programs", r.Programs, out.Grant, index.Spawn, "programs", ParseProgram)
	return out
}

func (v *validator) capabilities(field string, list []yStr) index.CapabilitySet {
	var cs []index.Capability
	for i, s := range list {
		if c, ok := parse(v, fmt.Sprintf("%s[%d]", field, i), s, index.ParseCapability); ok {
			cs = append(cs, c)
		}
	}
	return index.NewCapabilitySet(cs...)
}

// list checks a rule's hosts or programs: present only in a rule that
// grants need, not empty, each item parsed by f, no duplicates.
func (v *validator) list(field string, l yList[yStr, *yStr], grant index.CapabilitySet, need index.Capability, what string, f func(string) (string, error)) []string {
	if !l.set {
		return nil
	}
	if !grant.Has(need) {
		v.add(l.at, field, "lists %s but the rule does not grant %s (add %s to grant, or remove %s)", what, need, need, what)
	}
	if len(l.v) == 0 {
		v.add(l.at, field, "empty list (omit the field)")
	}
	var out []string
	for i, s := range l.v {
		item := fmt.Sprintf("%s[%d]", field, i)
		x, ok := parse(v, item, s, f)
		switch {
		case !ok:
		case slices.Contains(out, x):
			v.add(s.at, item, "duplicate %s", x)
		default:
			out = append(out, x)
		}
	}
	return out
}

// parse returns s parsed by f; a value f refuses is recorded against field
// (at s) and ok is false.
func parse[T any](v *validator, field string, s yStr, f func(string) (T, error)) (t T, ok bool) {
	t, err := f(s.v)
	if err != nil {
		v.add(s.at, field, "%v", err)
		return t, false
	}
	return t, true
}

// checkUpstream accepts an absolute https URL, or http to a loopback host
// (localhost or a loopback IP: tests and demos), with no user information,
// query or fragment.
func checkUpstream(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("invalid URL %q", s)
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return fmt.Errorf("URL %q: want https://", s)
	case u.Opaque != "" || u.Host == "" || u.Hostname() == "":
		return fmt.Errorf("URL %q: want https://host[/path]", s)
	case u.User != nil:
		return fmt.Errorf("URL %q: user information is not allowed (credentials do not belong in a policy)", u.Redacted())
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return fmt.Errorf("URL %q: a query or fragment is not allowed", s)
	case u.Scheme == "http" && !loopback(u.Hostname()):
		return fmt.Errorf("URL %q: http is allowed only for loopback hosts; use https", s)
	}
	return nil
}

func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
