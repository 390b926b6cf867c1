package policies

import (
	"github.com/goccy/go-yaml"
)

// The out* types are the canonical form MarshalYAML writes: every field
// explicit, defaults included, so the output reads as the decisions it
// makes. Their yaml tags match the raw* types (schema_test.go checks).
type outDoc struct {
	Version                  int          `yaml:"version"`
	Upstream                 string       `yaml:"upstream,omitempty"`
	Editor                   string       `yaml:"editor,omitempty"`
	Platforms                []string     `yaml:"platforms"`
	Extensions               []outRule    `yaml:"extensions"`
	Exclude                  []string     `yaml:"exclude,omitempty"`
	Dependencies             bool         `yaml:"dependencies"`
	RequireUpstreamSignature bool         `yaml:"requireUpstreamSignature"`
	MaxVsixBytes             int64        `yaml:"maxVsixBytes"`
	Capabilities             []outCapRule `yaml:"capabilities,omitempty"`
	Catalog                  outCatalog   `yaml:"catalog"`
	Control                  outControl   `yaml:"control,omitempty"`
}

type outControl struct {
	URL    string            `yaml:"url,omitempty"`
	Files  []string          `yaml:"files,omitempty"`
	MaxAge string            `yaml:"maxAge,omitempty"`
	Allow  []outControlAllow `yaml:"allow,omitempty"`
}

type outControlAllow struct {
	ID     string `yaml:"id"`
	Reason string `yaml:"reason"`
}

type outRule struct {
	ID         string `yaml:"id"`
	Versions   string `yaml:"versions"`
	Latest     any    `yaml:"latest"`
	PreRelease bool   `yaml:"preRelease"`
}

type outCapRule struct {
	ID       string   `yaml:"id"`
	Versions string   `yaml:"versions"`
	Grant    []string `yaml:"grant,omitempty"`
	Declare  []string `yaml:"declare,omitempty"`
	Hosts    []string `yaml:"hosts,omitempty"`
	Programs []string `yaml:"programs,omitempty"`
}

type outCatalog struct {
	Expires string `yaml:"expires"`
}

// MarshalYAML writes p as a canonical policy file: every field explicit,
// defaults filled in, rules added by WithDependencies left out. Parsing
// the result gives a Policy that decides exactly as p does (its Digest
// differs: that is of the bytes).
func (p *Policy) MarshalYAML() ([]byte, error) {
	d := outDoc{
		Version:                  FormatVersion,
		Upstream:                 p.Upstream,
		Dependencies:             p.Dependencies,
		RequireUpstreamSignature: p.RequireUpstreamSignature,
		MaxVsixBytes:             p.maxVsixBytes(),
		Catalog:                  outCatalog{Expires: FormatExpiry(DefaultCatalogExpires)},
	}
	if p.Editor != nil {
		d.Editor = p.Editor.Original()
	}
	for _, pl := range p.platforms() {
		d.Platforms = append(d.Platforms, string(pl))
	}
	for _, r := range p.Extensions {
		if r.Dependency {
			continue
		}
		var latest any = max(r.Latest, 1)
		if r.Latest == LatestAll {
			latest = "all"
		}
		d.Extensions = append(d.Extensions, outRule{ID: r.ID.String(), Versions: r.Versions.String(), Latest: latest, PreRelease: r.PreRelease})
	}
	for _, pat := range p.Exclude {
		d.Exclude = append(d.Exclude, pat.String())
	}
	for _, r := range p.CapabilityRules {
		c := outCapRule{ID: r.ID.String(), Versions: r.Versions.String(), Hosts: r.Hosts, Programs: r.Programs}
		for _, g := range r.Grant {
			c.Grant = append(c.Grant, string(g))
		}
		for _, g := range r.Declare {
			c.Declare = append(c.Declare, string(g))
		}
		d.Capabilities = append(d.Capabilities, c)
	}
	if p.CatalogExpires > 0 {
		d.Catalog.Expires = FormatExpiry(p.CatalogExpires)
	}
	if c := p.Control; c.URL != "" || len(c.Files) > 0 || c.MaxAge > 0 || len(c.Allow) > 0 {
		d.Control = outControl{URL: c.URL, Files: c.Files}
		if c.MaxAge > 0 {
			d.Control.MaxAge = FormatExpiry(c.MaxAge)
		}
		for _, a := range c.Allow {
			d.Control.Allow = append(d.Control.Allow, outControlAllow(a))
		}
	}
	return yaml.MarshalWithOptions(d, yaml.IndentSequence(true))
}
