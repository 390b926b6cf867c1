package policies

import (
	"strconv"
	"strings"

	"github.com/airvsx/airvsx/index"
)

// Placeholders RuleLine writes for a list the caller does not know: the
// program a spawn grant lets the extension start, the host a network
// grant lets it reach.
const (
	ProgramPlaceholder = "/ABSOLUTE/PATH/OF/PROGRAM"
	HostPlaceholder    = "HOST"
)

// RuleLine returns one capabilities item, in the policy file's syntax (a
// YAML flow mapping on one line, "- {id: ns.name, grant: [spawn],
// programs: [/usr/bin/git]}"), that grants grant to id and declares
// declare on its behalf. A rule for spawn needs programs and one for
// network hosts: empty lists are written as ProgramPlaceholder and
// HostPlaceholder. Added under a policy's capabilities, it grants what it
// names (grants are unions: it takes nothing away).
func RuleLine(id index.ID, grant, declare index.CapabilitySet, programs, hosts []string) string {
	var b strings.Builder
	b.WriteString("- {id: " + yamlScalar(id.String()))
	list := func(key string, items []string) {
		b.WriteString(", " + key + ": [")
		for i, s := range items {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(yamlScalar(s))
		}
		b.WriteString("]")
	}
	names := func(s index.CapabilitySet) []string {
		var out []string
		for _, c := range s {
			out = append(out, string(c))
		}
		return out
	}
	if len(declare) > 0 {
		list("declare", names(declare))
	}
	list("grant", names(grant))
	if grant.Has(index.Spawn) {
		if len(programs) == 0 {
			programs = []string{ProgramPlaceholder}
		}
		list("programs", programs)
	}
	if grant.Has(index.Network) {
		if len(hosts) == 0 {
			hosts = []string{HostPlaceholder}
		}
		list("hosts", hosts)
	}
	b.WriteString("}")
	return b.String()
}

// yamlScalar writes s plain when it is made only of characters that are
// plain in a YAML flow collection, else double-quoted.
func yamlScalar(s string) string {
	plain := s != ""
	for i, r := range s {
		ok := 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '/' || r == '_' || r == '+' || (r == '.' || r == '-') && i > 0
		if !ok {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return strconv.Quote(s)
}
