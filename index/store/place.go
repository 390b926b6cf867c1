package store

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrUnknownPlace is wrapped when a place names a scheme airvsx does not
// know.
var ErrUnknownPlace = errors.New("unknown kind of place")

// PlaceKind is the kind of store a place names.
type PlaceKind string

// The kinds of place.
const (
	// PlaceDir is a registry in a local directory: "DIR".
	PlaceDir PlaceKind = "dir"
	// PlaceGit is a registry in a git repository: "git:PATH[#REF]".
	PlaceGit PlaceKind = "git"
	// PlaceDocker is a registry in an OCI distribution registry:
	// "docker://HOST[:PORT]/PREFIX".
	PlaceDocker PlaceKind = "docker"
)

// Place is where a registry lives, as every command accepts it (--registry,
// copy's SRC and DST). ParsePlace makes one; String gives it back.
type Place struct {
	Kind PlaceKind
	// Path is the directory (PlaceDir) or the repository (PlaceGit).
	Path string
	// Ref is the branch, tag or commit of a git place; "" means HEAD.
	Ref string
	// Host is "HOST[:PORT]" of a docker place.
	Host string
	// Prefix is the repository prefix of a docker place ("airvsx",
	// "team/airvsx").
	Prefix string
}

// String returns the place in the form ParsePlace reads.
func (p Place) String() string {
	switch p.Kind {
	case PlaceGit:
		if p.Ref != "" {
			return "git:" + p.Path + "#" + p.Ref
		}
		return "git:" + p.Path
	case PlaceDocker:
		return "docker://" + p.Host + "/" + p.Prefix
	}
	return p.Path
}

// placeForms is what every place error offers.
const placeForms = "give a directory (DIR), a git repository (git:PATH[#REF]) or an OCI registry (docker://HOST[:PORT]/PREFIX)"

// ParsePlace parses a place: "DIR", "git:PATH[#REF]" or
// "docker://HOST[:PORT]/PREFIX". Any other "scheme://" is an error
// wrapping ErrUnknownPlace that lists the forms; so is an empty string.
func ParsePlace(s string) (Place, error) {
	bad := func(why string) (Place, error) {
		return Place{}, fmt.Errorf("place %q: %s; %s: %w", s, why, placeForms, ErrUnknownPlace)
	}
	switch {
	case s == "":
		return bad("empty")
	case strings.ContainsRune(s, 0):
		return bad("contains a NUL byte")
	case strings.HasPrefix(s, "git:"):
		p := Place{Kind: PlaceGit, Path: strings.TrimPrefix(s, "git:")}
		if i := strings.LastIndexByte(p.Path, '#'); i >= 0 {
			p.Path, p.Ref = p.Path[:i], p.Path[i+1:]
			if p.Ref == "" {
				return bad("empty ref after #")
			}
		}
		if strings.HasPrefix(p.Path, "//") {
			return bad("git places are local repositories (git:PATH), not URLs")
		}
		if p.Path == "" {
			return bad("no repository path after git:")
		}
		return p, nil
	case strings.HasPrefix(s, "docker://"):
		rest := strings.TrimPrefix(s, "docker://")
		host, prefix, _ := strings.Cut(rest, "/")
		prefix = strings.TrimSuffix(prefix, "/")
		if host == "" || prefix == "" {
			return bad("want docker://HOST[:PORT]/PREFIX")
		}
		if err := checkHost(host); err != nil {
			return bad(err.Error())
		}
		for _, part := range strings.Split(prefix, "/") {
			if !elementPattern.MatchString(part) || part != strings.ToLower(part) {
				return bad(fmt.Sprintf("prefix element %q: want lower-case [a-z0-9][a-z0-9._-]*", part))
			}
		}
		return Place{Kind: PlaceDocker, Host: host, Prefix: prefix}, nil
	}
	if scheme, _, ok := strings.Cut(s, "://"); ok && !strings.ContainsAny(scheme, `/\`) {
		return bad(fmt.Sprintf("scheme %q is not one airvsx reads", scheme))
	}
	return Place{Kind: PlaceDir, Path: s}, nil
}

// checkHost checks "HOST[:PORT]".
func checkHost(hostport string) error {
	host, port := hostport, ""
	if strings.HasPrefix(hostport, "[") {
		end := strings.IndexByte(hostport, ']')
		if end < 0 {
			return fmt.Errorf("host %q: unclosed [", hostport)
		}
		host, port = hostport[1:end], strings.TrimPrefix(hostport[end+1:], ":")
		if hostport[end+1:] != "" && !strings.HasPrefix(hostport[end+1:], ":") {
			return fmt.Errorf("host %q: want [ADDRESS]:PORT", hostport)
		}
	} else if i := strings.LastIndexByte(hostport, ':'); i >= 0 {
		host, port = hostport[:i], hostport[i+1:]
		if port == "" {
			return fmt.Errorf("host %q: empty port", hostport)
		}
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("port %q is not a number from 1 to 65535", port)
		}
	}
	if host == "" || strings.ContainsAny(host, "/@?#% \t") {
		return fmt.Errorf("host %q is not a host name or address", host)
	}
	return nil
}
