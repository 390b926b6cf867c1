package vscodeapi

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// The generated files of the package.
const (
	APIFile     = "api.json"
	SurfaceFile = "surface.json"
)

// Kinds of a top-level name in api.json.
const (
	KindNamespace = "namespace"
	KindClass     = "class"
	KindEnum      = "enum"
	KindFunction  = "function"
	KindVariable  = "variable"
)

var (
	//go:embed api.json
	apiJSON []byte
	//go:embed surface.json
	surfaceJSON []byte
)

// API is the content of api.json.
type API struct {
	// Version is the API version the names are of.
	Version string `json:"version"`
	// Names maps every top-level name of module 'vscode' to its kind.
	Names map[string]string `json:"names"`
	// Members lists, sorted, the names declared in each namespace.
	Members map[string][]string `json:"members"`
}

// Surface is the content of surface.json.
type Surface struct {
	// Version is the API version of the api.json it was computed with.
	Version string `json:"version"`
	// Implemented lists, sorted, the names of the API the host's vscode
	// module has: "X" for a top-level name, "ns.member" for a member of
	// a namespace.
	Implemented []string `json:"implemented"`
}

type data struct {
	api         API
	members     map[string]map[string]bool
	implemented map[string]bool
	names       []string
}

// load parses the embedded files; TestData checks they parse.
var load = sync.OnceValue(func() *data {
	d, err := parse(apiJSON, surfaceJSON)
	if err != nil {
		panic("vscodeapi: " + err.Error())
	}
	return d
})

func parse(apiData, surfaceData []byte) (*data, error) {
	d := &data{members: make(map[string]map[string]bool), implemented: make(map[string]bool)}
	if err := json.Unmarshal(apiData, &d.api); err != nil {
		return nil, fmt.Errorf("%s: %w", APIFile, err)
	}
	var s Surface
	if err := json.Unmarshal(surfaceData, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", SurfaceFile, err)
	}
	for ns, ms := range d.api.Members {
		d.members[ns] = make(map[string]bool, len(ms))
		for _, m := range ms {
			d.members[ns][m] = true
			d.names = append(d.names, ns+"."+m)
		}
	}
	d.names = append(d.names, slices.Collect(maps.Keys(d.api.Names))...)
	slices.Sort(d.names)
	for _, n := range s.Implemented {
		d.implemented[n] = true
	}
	return d, nil
}

// APIJSON returns the bytes of api.json, which the host's guard reads.
func APIJSON() []byte { return slices.Clone(apiJSON) }

// Version is the API version of api.json.
func Version() string { return load().api.Version }

// Names returns every name of the API, sorted: "X" for each top-level
// name and "ns.member" for each member of a namespace.
func Names() []string { return slices.Clone(load().names) }

// Known reports whether name ("X" or "ns.member") is a name of the API.
func Known(name string) bool {
	d := load()
	top, member, ok := strings.Cut(name, ".")
	if !ok {
		_, known := d.api.Names[top]
		return known
	}
	return d.members[top][member]
}

// Supported reports whether the host implements name: "X", or
// "ns.member" for a member of a namespace. For "X.y" where X is a class,
// an enum or a variable, it reports on X (its own members are not
// tracked). A name that is not the API's is not supported.
func Supported(name string) bool {
	d := load()
	top, member, ok := strings.Cut(name, ".")
	if ok && d.api.Names[top] == KindNamespace {
		return d.implemented[top] && d.implemented[top+"."+member]
	}
	return d.implemented[top]
}

// Unsupported returns, sorted and without duplicates, the API names among
// names (as vsix.Inspection.APIMembers lists them: "X" or "X.member")
// that the host does not implement: "ns.member" for a member of a
// namespace, "X" otherwise (and for a namespace the host lacks when the
// member is not the API's). Names that are not the API's (a webview's
// own vscode object, a typo) are left out: at run time reading them
// gives undefined, as VS Code does.
func Unsupported(names []string) []string {
	d := load()
	seen := make(map[string]bool)
	var out []string
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, n := range names {
		top, member, ok := strings.Cut(n, ".")
		kind, known := d.api.Names[top]
		switch {
		case !known:
		case kind == KindNamespace && ok && d.members[top][member]:
			if !d.implemented[top] || !d.implemented[top+"."+member] {
				add(top + "." + member)
			}
		case !d.implemented[top]:
			add(top)
		}
	}
	slices.Sort(out)
	return out
}
