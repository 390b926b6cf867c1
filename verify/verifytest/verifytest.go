// Package verifytest holds what tests of verify's reports share.
package verifytest

import (
	"strings"

	"github.com/airvsx/airvsx/verify"
)

// ProblemList lists a report's problems one a line, each with its
// severity, rule, path, entry and message, for a failing test's message.
func ProblemList(rep *verify.Report) string {
	var b strings.Builder
	for _, p := range rep.Problems {
		b.WriteString("  " + p.Severity.String() + " " + string(p.Rule) + " " + p.File + " [" + p.Entry + "] " + p.Message + "\n")
	}
	return b.String()
}
