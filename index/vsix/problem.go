package vsix

import (
	"errors"
	"fmt"
	"strings"

	"github.com/airvsx/airvsx/index/problem"
)

// Severity says whether a problem makes a package unusable: the one
// severity of index/problem.
type Severity = problem.Severity

const (
	// Error means the package breaks a rule and must not be used.
	Error = problem.Error
	// Warning means the package is usable but something deserves a look
	// (an unknown contribution kind, an unknown activation event).
	Warning = problem.Warning
)

// Rule names one check. Rule names are stable: reports, tests and scripts
// match on them.
type Rule = problem.Rule

// Problem is one broken rule, found in one file (an archive entry name, or
// the archive itself when File is empty) and, for manifests and zip
// headers, one field. Its String is "file: field: rule: message".
type Problem = problem.Problem

// Report collects every problem found in one package, errors and warnings.
// Checks append to it and never stop at the first problem.
type Report struct {
	Problems []Problem `json:"problems"`
}

// Add records a problem.
func (r *Report) Add(p Problem) { r.Problems = append(r.Problems, p) }

// Errorf records an error-severity problem.
func (r *Report) Errorf(file, field string, rule Rule, format string, args ...any) {
	r.Add(Problem{File: file, Field: field, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// Warnf records a warning.
func (r *Report) Warnf(file, field string, rule Rule, format string, args ...any) {
	r.Add(Problem{File: file, Field: field, Rule: rule, Message: fmt.Sprintf(format, args...), Severity: Warning})
}

// Errors returns the error-severity problems.
func (r *Report) Errors() []Problem { return problem.Filter(r.Problems, Error) }

// Warnings returns the warnings.
func (r *Report) Warnings() []Problem { return problem.Filter(r.Problems, Warning) }

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
