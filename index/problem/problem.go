// Package problem provides the one vocabulary for a problem found in
// untrusted input (a .vsix, a registry, an extension to install): its
// Severity, the Rule it breaks, the File and Field it is about, and a
// Message. index/vsix records them while it reads an archive, verify
// reports them (with the catalog entry and the fix), and hostlaunch/install
// refuses with them. Checks collect every problem and fail once.
package problem

import (
	"fmt"
	"strings"
)

// Severity says whether a problem makes the input unusable. The zero
// value is Error.
type Severity int

const (
	// Error means the input breaks a rule and must not be used.
	Error Severity = iota
	// Warning means the input is usable but something deserves a look
	// (an unknown contribution kind, an orphaned file).
	Warning
	// Note is not a problem but a fact worth saying (an entry added by
	// hand, which has no upstream signature).
	Note
)

// String returns "error", "warning" or "note".
func (s Severity) String() string {
	switch s {
	case Warning:
		return "warning"
	case Note:
		return "note"
	}
	return "error"
}

// MarshalText encodes the severity as its name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText decodes "error", "warning" or "note".
func (s *Severity) UnmarshalText(b []byte) error {
	switch string(b) {
	case "error":
		*s = Error
	case "warning":
		*s = Warning
	case "note":
		*s = Note
	default:
		return fmt.Errorf("severity %q: want error, warning or note", b)
	}
	return nil
}

// Rule names one check. Rule names are stable: reports, tests and
// scripts match on them.
type Rule string

// Problem is one broken rule, found in one file and, where it applies,
// one field of it. Its JSON is the problem of airvsx inspect --json
// (Message is encoded as "detail"); verify's report encodes its own.
type Problem struct {
	// File is the file the problem is about: an archive entry
	// ("extension/package.json"), a registry file, or "" for the input
	// as a whole.
	File string `json:"file,omitempty"`
	// Field is the field of File: a manifest field ("engines.vscode")
	// or a zip header field ("local header name"); "" when none.
	Field    string   `json:"field,omitempty"`
	Rule     Rule     `json:"rule"`
	Message  string   `json:"detail"`
	Severity Severity `json:"severity"`
}

// Level returns the problem's severity: a type that embeds a Problem has
// it too, for Filter.
func (p Problem) Level() Severity { return p.Severity }

// Filter returns the problems of ps at severity s, in order.
func Filter[P interface{ Level() Severity }](ps []P, s Severity) []P {
	var out []P
	for _, p := range ps {
		if p.Level() == s {
			out = append(out, p)
		}
	}
	return out
}

// String formats the problem as "file: field: rule: message", leaving
// out the parts that are empty.
func (p Problem) String() string {
	var b strings.Builder
	for _, s := range []string{p.File, p.Field, string(p.Rule), p.Message} {
		if s == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(s)
	}
	return b.String()
}
