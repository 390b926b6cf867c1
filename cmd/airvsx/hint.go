package main

import (
	"regexp"
	"strings"
)

// A hint ends a failure message with the exact command that shows more
// or gets the user further (restic's "run repair index"). Every hint is a
// command that works as printed: it carries the flags the user gave, the
// trust anchor above all, quoted for a POSIX shell.

// commandLine joins args into one shell command line.
func commandLine(args ...string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shellQuote returns s as one word of a POSIX shell command line: as is
// when it holds no special character, else in single quotes.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// repairHint is the copy --repair command that repairs the directory
// registry dst from src (GOOD when the user must name the good copy),
// with the trust anchor and state flags the user gave.
func repairHint(src, dst string, anchor *anchorFlags) string {
	return commandLine(append([]string{"airvsx", "copy", "--repair", src, dst}, anchor.args()...)...)
}

// siteVerifyHint is the verify command that reports every problem of the
// registry site could not verify, with the same trust anchor and state
// flags. verify needs an anchor: without one (site --unverified), the
// hint is verify's synopsis, to be completed with the anchor.
func siteVerifyHint(opts siteOptions) string {
	args := []string{"airvsx", "verify", "--registry", opts.registry.place}
	if !opts.anchor.given() {
		return commandLine(args...) + " (--root root.json | --key PREFIX.pub)"
	}
	return commandLine(append(args, opts.anchor.args()...)...)
}

// siteUnverifiedHint is the site command the user ran, with --unverified:
// it renders the catalog anyway, with a banner on every page.
func siteUnverifiedHint(opts siteOptions) string {
	args := []string{"airvsx", "site", "--registry", opts.registry.place, "--out", opts.out}
	args = append(args, opts.anchor.args()...)
	if opts.baseURL != "" {
		args = append(args, "--base-url", opts.baseURL)
	}
	if opts.title != "" {
		args = append(args, "--title", opts.title)
	}
	return commandLine(append(args, "--unverified")...)
}
