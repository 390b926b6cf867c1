package vsix

import (
	"errors"
	"fmt"
	"strings"
)

// Severity says whether a problem makes a package unusable.
type Severity int

const (
	// Error means the package breaks a rule and must not be used.
	Error Severity = iota
	// Warning means the package is usable but something deserves a look
	// (an unknown contribution kind, an unknown activation event).
	Warning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// MarshalText encodes the severity as its name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Rule names one check. Rule names are stable: reports, tests and scripts
// match on them.
type Rule string

// Problem is one broken rule, found in one file (an archive entry name, or
// the archive itself when File is empty) and, for manifests and zip
// headers, one field.
type Problem struct {
	File     string   `json:"file,omitempty"`  // archive entry, e.g. "extension/package.json"
	Field    string   `json:"field,omitempty"` // manifest field, e.g. "engines.vscode", or zip field, e.g. "local header name"
	Rule     Rule     `json:"rule"`
	Detail   string   `json:"detail"`
	Severity Severity `json:"severity"`
}

// String formats the problem as "file: field: rule: detail".
func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		b.WriteString(": ")
	}
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(string(p.Rule))
	if p.Detail != "" {
		b.WriteString(": ")
		b.WriteString(p.Detail)
	}
	return b.String()
}

// Report collects every problem found in one package, errors and warnings.
// Checks append to it and never stop at the first problem.
type Report struct {
	Problems []Problem `json:"problems"`
}

// Add records a problem.
func (r *Report) Add(p Problem) { r.Problems = append(r.Problems, p) }

// Errorf records an error-severity problem.
func (r *Report) Errorf(file, field string, rule Rule, format string, args ...any) {
	r.Add(Problem{File: file, Field: field, Rule: rule, Detail: fmt.Sprintf(format, args...)})
}

// Warnf records a warning.
func (r *Report) Warnf(file, field string, rule Rule, format string, args ...any) {
	r.Add(Problem{File: file, Field: field, Rule: rule, Detail: fmt.Sprintf(format, args...), Severity: Warning})
}

// Errors returns the error-severity problems.
func (r *Report) Errors() []Problem { return r.filter(Error) }

// Warnings returns the warnings.
func (r *Report) Warnings() []Problem { return r.filter(Warning) }

func (r *Report) filter(s Severity) []Problem {
	var out []Problem
	for _, p := range r.Problems {
		if p.Severity == s {
			out = append(out, p)
		}
	}
	return out
}

// Err returns nil when the report holds no errors, and otherwise a
// *ProblemsError listing every one of them (warnings are left out).
func (r *Report) Err() error {
	errs := r.Errors()
	if len(errs) == 0 {
		return nil
	}
	return &ProblemsError{Problems: errs}
}

// ErrRejected is the category of every *ProblemsError: the package breaks at
// least one rule.
var ErrRejected = errors.New("package rejected")

// ProblemsError is the error of a package that breaks one or more rules.
type ProblemsError struct {
	Name     string // the archive's path or name, when known
	Problems []Problem
}

func (e *ProblemsError) Error() string {
	var b strings.Builder
	if e.Name != "" {
		b.WriteString(e.Name)
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "%d problem(s)", len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n\t")
		b.WriteString(p.String())
	}
	return b.String()
}

// Is reports whether target is ErrRejected.
func (e *ProblemsError) Is(target error) bool { return target == ErrRejected }
