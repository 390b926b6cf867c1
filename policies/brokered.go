package policies

import (
	"fmt"
	"net/netip"
	"path"
	"strconv"
	"strings"
)

// ParseHost checks one entry of a capability rule's hosts and returns it
// lower-cased: a DNS name or an IP address (IPv6 in brackets), optionally
// with ":port" (1 to 65535), and optionally "*." before a DNS name, which
// stands for its subdomains. No scheme, user, path, query or other
// wildcard. Without a port the entry admits the scheme's default port
// (80 for http, 443 for https).
func ParseHost(s string) (string, error) {
	h := strings.ToLower(s)
	if h == "" {
		return "", fmt.Errorf("empty host (want host, host:port or *.domain)")
	}
	if strings.ContainsAny(h, "/?#@ \t\\") || strings.Contains(h, "://") {
		return "", fmt.Errorf("host %q: want host or host:port, without scheme, user or path", s)
	}
	name, port := h, ""
	if strings.HasPrefix(h, "[") {
		end := strings.IndexByte(h, ']')
		if end < 0 {
			return "", fmt.Errorf("host %q: unclosed [", s)
		}
		name, port = h[1:end], h[end+1:]
		ip, err := netip.ParseAddr(name)
		if err != nil || !ip.Is6() || ip.Zone() != "" {
			return "", fmt.Errorf("host %q: %q in brackets is not an IPv6 address", s, name)
		}
		if port != "" && !strings.HasPrefix(port, ":") {
			return "", fmt.Errorf("host %q: want [address] or [address]:port", s)
		}
		port = strings.TrimPrefix(port, ":")
		name = "[" + ip.String() + "]"
	} else {
		switch strings.Count(h, ":") {
		case 0:
		case 1:
			name, port, _ = strings.Cut(h, ":")
		default:
			return "", fmt.Errorf("host %q: an IPv6 address must be written in brackets, [::1]:8080", s)
		}
		if err := checkHostName(name); err != nil {
			return "", fmt.Errorf("host %q: %v", s, err)
		}
	}
	if port != "" || strings.HasSuffix(h, ":") {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
			return "", fmt.Errorf("host %q: port %q is not a number from 1 to 65535", s, port)
		}
		return name + ":" + port, nil
	}
	return name, nil
}

// checkHostName accepts an IPv4 address, or a DNS name of letters, digits
// and hyphens, optionally after "*.".
func checkHostName(name string) error {
	wild := strings.HasPrefix(name, "*.")
	rest := strings.TrimPrefix(name, "*.")
	if ip, err := netip.ParseAddr(rest); err == nil {
		if wild || !ip.Is4() {
			return fmt.Errorf("a wildcard applies to DNS names only")
		}
		return nil
	}
	if strings.Contains(rest, "*") {
		return fmt.Errorf("the only wildcard allowed is a leading *. (subdomains)")
	}
	if len(rest) == 0 || len(rest) > 253 {
		return fmt.Errorf("want a DNS name or an IP address")
	}
	for _, label := range strings.Split(rest, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("%q is not a DNS name", rest)
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return fmt.Errorf("%q is not a DNS name", rest)
			}
		}
	}
	return nil
}

// ParseProgram checks one entry of a capability rule's programs: an
// absolute, clean path ("/usr/bin/git"; no "..", "." or "//"), without
// control characters, that is not "/" itself.
func ParseProgram(s string) (string, error) {
	switch {
	case !strings.HasPrefix(s, "/"):
		return "", fmt.Errorf("program %q: want an absolute path such as /usr/bin/git", s)
	case s == "/" || path.Clean(s) != s:
		return "", fmt.Errorf("program %q: want a clean absolute path to a program (no trailing /, //, . or ..)", s)
	case strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "", fmt.Errorf("program %q: control characters are not allowed", s)
	}
	return s, nil
}
