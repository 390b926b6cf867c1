package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/airvsx/airvsx/hostlaunch/host"
	"github.com/airvsx/airvsx/hostlaunch/install"
	"github.com/airvsx/airvsx/hostlaunch/session"
)

// hostGroup is one extension host run would start: the extensions that
// share it, all granted the same.
type hostGroup struct {
	Extensions   []string `json:"extensions"`
	Capabilities []string `json:"capabilities"`
	AllowedHosts []string `json:"allowedHosts,omitempty"`
	Programs     []string `json:"programs,omitempty"`
}

// hostGroups are the hosts run starts for the enabled extensions of l
// (host.Groups: one per grant).
func hostGroups(l *install.Loaded) []hostGroup {
	out := []hostGroup{}
	for _, g := range host.Groups(session.HostExtensions(l)) {
		hg := hostGroup{Capabilities: append([]string{}, g[0].Capabilities...), AllowedHosts: g[0].AllowedHosts, Programs: g[0].Programs}
		for _, e := range g {
			hg.Extensions = append(hg.Extensions, e.ID)
		}
		out = append(out, hg)
	}
	return out
}

// writeHostGroups prints the hosts, one a line.
func writeHostGroups(w io.Writer, groups []hostGroup) error {
	if len(groups) == 0 {
		return nil
	}
	if _, err := fmt.Fprintf(w, "hosts: %d (extensions share a host only when their grants are equal)\n", len(groups)); err != nil {
		return err
	}
	for i, g := range groups {
		grant := "no capabilities"
		if len(g.Capabilities) > 0 {
			var parts []string
			for _, c := range g.Capabilities {
				switch {
				case c == "network" && len(g.AllowedHosts) > 0:
					c += " [" + strings.Join(g.AllowedHosts, " ") + "]"
				case c == "spawn" && len(g.Programs) > 0:
					c += " [" + strings.Join(g.Programs, " ") + "]"
				}
				parts = append(parts, c)
			}
			grant = strings.Join(parts, ", ")
		}
		if _, err := fmt.Fprintf(w, "  host %d: %s (%s)\n", i+1, strings.Join(g.Extensions, ", "), grant); err != nil {
			return err
		}
	}
	return nil
}
