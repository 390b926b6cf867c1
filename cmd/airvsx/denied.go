package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/airvsx/airvsx/hostlaunch/host"
	"github.com/airvsx/airvsx/hostlaunch/install"
	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/internal/termtext"
	"github.com/airvsx/airvsx/policies"
)

// deniedError is the one error of a run that failed after the seat belt
// refused an extension something a capability would allow (the first
// such KindDenied event among events): it names the extension, the
// capability and what it was refused, the capabilities item that would
// grant it and the install command that applies the policy; it wraps
// cause, the error the run failed with. It returns nil when no event is
// such a refusal. dir is the extensions directory,
// whose records say what the extension declares and where it came from.
func deniedError(ctx context.Context, dir string, events []host.Event, cause error) error {
	var ev *host.Event
	for i := range events {
		if e := &events[i]; e.Kind == host.KindDenied && e.Capability != "" && e.Extension != "" {
			ev = e
			break
		}
	}
	if ev == nil {
		return nil
	}
	c, err := index.ParseCapability(ev.Capability)
	if err != nil {
		return nil
	}
	id, err := index.ParseID(ev.Extension)
	if err != nil {
		return nil
	}
	var d host.DeniedData
	json.Unmarshal(ev.Data, &d)
	what := d.Operation
	if d.Target != "" {
		what += fmt.Sprintf("(%q)", d.Target)
	}
	if what == "" {
		what = "use it"
	}
	var rec *install.Record
	if l, err := install.Load(ctx, dir, install.DirOptions{Logger: slog.New(slog.DiscardHandler)}); err == nil {
		for i := range l.Extensions {
			if l.Extensions[i].ID.Equal(id) {
				rec = &l.Extensions[i]
			}
		}
	}
	if rec != nil && rec.Effective().Has(c) {
		// Granted, and refused all the same: a module the capability
		// reaches only through its broker; the host's error says what to
		// use instead.
		return nil
	}
	var declare index.CapabilitySet
	if rec == nil || !rec.Declared.Has(c) {
		// It does not declare it: the policy must, on its behalf.
		declare = index.CapabilitySet{c}
	}
	var programs, hosts []string
	switch c {
	case index.Spawn:
		if p := programOf(d.Target); p != "" {
			programs = []string{p}
		}
	case index.Network:
		if h := hostOf(d.Target); h != "" {
			hosts = []string{h}
		}
	}
	line := policies.RuleLine(id, index.CapabilitySet{c}, declare, programs, hosts)
	reinstall := []string{"airvsx", "install", id.String(), "--registry", "PLACE", "--key", "PREFIX.pub"}
	if rec != nil {
		switch rec.Source.Kind {
		case install.SourceRegistry:
			reinstall[4] = rec.Source.Registry
		case install.SourceLocalFile:
			reinstall = []string{"airvsx", "install", rec.Source.File}
		}
	}
	reinstall = append(reinstall, "--extensions", dir, "--policy", "POLICY.yaml")
	return &wordedError{err: cause, msg: fmt.Sprintf("%s was denied the %q capability: it tried to %s, and the policy it was installed with does not grant it %s; to grant it, add under the policy's capabilities: %s and install it again with that policy: %s",
		ev.Extension, c, termtext.Escape(what), c, line, commandLine(reinstall...))}
}

// programOf is the program a denied spawn named: an absolute path as it
// is, a bare name as the spawn broker would find it; "" when neither.
func programOf(target string) string {
	switch {
	case target == "":
		return ""
	case !strings.Contains(target, "/"):
		return host.LookupProgram(target)
	case filepath.IsAbs(target):
		return filepath.Clean(target)
	}
	return ""
}

// hostOf is the host of a URL a denied network call named, as the
// policy's hosts list it ("host" or "host:port"); "" when it is not one.
func hostOf(target string) string {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return ""
	}
	h, err := policies.ParseHost(strings.ToLower(u.Host))
	if err != nil {
		return ""
	}
	return h
}
