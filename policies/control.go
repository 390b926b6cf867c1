package policies

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/airvsx/airvsx/index"
)

// Control says which extension control lists (kill lists: the extensions
// found malicious or deprecated) the registry carries and how they are
// enforced. The zero value carries none and overrides nothing.
type Control struct {
	// URL is where sync fetches the upstream's list (Open VSX's
	// extension-control/extensions.json, or a gallery's controlUrl);
	// `airvsx sync --control-url` overrides it. "" fetches none: there is
	// no implicit one.
	URL string
	// Files are an admin's own lists, in the same format, read by sync
	// (relative to the policy file's folder) and carried with the origin
	// "file:" + the file's base name without ".json".
	Files []string
	// MaxAge is how old a carried list may be before verify, install and
	// run say it is stale; 0: no bound.
	MaxAge time.Duration
	// Allow are the extensions installed and run although a list names
	// them: each an exact ID and the admin's reason, logged and shown.
	Allow []ControlAllow
}

// ControlAllow is one explicit override of the control lists.
type ControlAllow struct {
	ID     string
	Reason string
}

// Allowed returns the override of id (compared ignoring case), if any.
func (c Control) Allowed(id string) (ControlAllow, bool) {
	for _, a := range c.Allow {
		if strings.EqualFold(a.ID, id) {
			return a, true
		}
	}
	return ControlAllow{}, false
}

// ControlOrigin is the origin a list file of Files is carried under:
// "file:" and its base name without ".json".
func ControlOrigin(file string) string {
	return "file:" + strings.TrimSuffix(filepath.Base(file), ".json")
}

type rawControl struct {
	URL    yStr                                     `yaml:"url"`
	Files  yList[yStr, *yStr]                       `yaml:"files"`
	MaxAge yStr                                     `yaml:"maxAge"`
	Allow  yList[rawControlAllow, *rawControlAllow] `yaml:"allow"`
	at     pos
}

func (c *rawControl) UnmarshalYAML(n ast.Node) error {
	type plain rawControl
	return decodeMapping(n, (*plain)(c), &c.at)
}

type rawControlAllow struct {
	ID     yStr `yaml:"id"`
	Reason yStr `yaml:"reason"`
	at     pos
}

func (a *rawControlAllow) UnmarshalYAML(n ast.Node) error {
	type plain rawControlAllow
	return decodeMapping(n, (*plain)(a), &a.at)
}

// controlFileName is what a list file's base name may be: its origin.
func controlFileName(s string) error {
	if s == "" || strings.ContainsRune(s, 0) {
		return fmt.Errorf("empty file name")
	}
	base := strings.TrimSuffix(filepath.Base(s), ".json")
	for i, r := range base {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || i > 0 && (r == '.' || r == '_' || r == '-')
		if !ok || i >= 64 {
			return fmt.Errorf("file %q: its name (without .json) must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit: it names the list's origin", s)
		}
	}
	if base == "" {
		return fmt.Errorf("file %q: no name", s)
	}
	return nil
}

// control validates the control section into p.Control.
func (v *validator) control(c rawControl) Control {
	var out Control
	if c.URL.set {
		if err := checkUpstream(c.URL.v); err != nil {
			v.add(c.URL.at, "control.url", "%v", err)
		}
		out.URL = c.URL.v
	}
	origins := map[string]bool{}
	for i, f := range c.Files.v {
		field := fmt.Sprintf("control.files[%d]", i)
		if err := controlFileName(f.v); err != nil {
			v.add(f.at, field, "%v", err)
			continue
		}
		if o := ControlOrigin(f.v); origins[o] {
			v.add(f.at, field, "a second list named %s (each list's file name is its origin)", o)
		} else {
			origins[o] = true
		}
		out.Files = append(out.Files, f.v)
	}
	if c.MaxAge.set {
		if d, ok := parse(v, "control.maxAge", c.MaxAge, ParseExpiry); ok {
			out.MaxAge = d
		}
	}
	seen := map[string]bool{}
	for i, a := range c.Allow.v {
		field := fmt.Sprintf("control.allow[%d]", i)
		_, err := index.ParseID(a.ID.v)
		switch {
		case !a.ID.set:
			v.add(a.at, field+".id", "missing (want the exact extension ID the override is for)")
			continue
		case err != nil:
			v.add(a.ID.at, field+".id", "%q: want one exact extension ID (namespace.name): an override names one extension", a.ID.v)
			continue
		case !a.Reason.set || strings.TrimSpace(a.Reason.v) == "":
			v.add(a.at, field+".reason", "missing (say why the list is overridden: it is logged and shown)")
			continue
		case seen[strings.ToLower(a.ID.v)]:
			v.add(a.ID.at, field+".id", "%s overridden twice", a.ID.v)
			continue
		}
		seen[strings.ToLower(a.ID.v)] = true
		out.Allow = append(out.Allow, ControlAllow{ID: a.ID.v, Reason: a.Reason.v})
	}
	return out
}
