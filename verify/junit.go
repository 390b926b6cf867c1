package verify

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML: one test suite; one test
// case per entry (classname airvsx.verify.entry), failed when the entry
// has an error, plus for a registry one test case "registry" (classname
// airvsx.verify.registry) for the problems of no single entry (trust
// chain, catalog, layout, orphans). The failure's message is the first
// error; its text lists every error with its path and fix. Warnings go to
// system-out.
func (r *Report) WriteJUnit(w io.Writer) error {
	byEntry := map[string][]Problem{}
	for _, p := range r.Problems {
		byEntry[p.Entry] = append(byEntry[p.Entry], p)
	}
	suite := junitSuite{Name: "airvsx verify " + r.Target}
	mk := func(class, name string, probs []Problem) junitCase {
		c := junitCase{Classname: class, Name: name}
		var errs, warns strings.Builder
		first := ""
		for _, p := range probs {
			line := fmt.Sprintf("%s %s: %s: %s\n  fix: %s\n", p.Severity, p.Rule, p.File, p.Message, p.Fix)
			if p.Severity == Error {
				if first == "" {
					first = string(p.Rule) + ": " + p.Message
				}
				errs.WriteString(line)
			} else {
				warns.WriteString(line)
			}
		}
		if first != "" {
			c.Failure = &junitFailure{Message: first, Type: "airvsx.verify", Text: errs.String()}
		}
		c.SystemOut = warns.String()
		return c
	}
	if r.Kind == "registry" {
		suite.Cases = append(suite.Cases, mk("airvsx.verify.registry", "registry", byEntry[""]))
	}
	for _, e := range r.Entries {
		probs := byEntry[e.Entry]
		if r.Kind == "package" {
			probs = r.Problems
		}
		suite.Cases = append(suite.Cases, mk("airvsx.verify.entry", e.Entry, probs))
	}
	for _, c := range suite.Cases {
		suite.Tests++
		if c.Failure != nil {
			suite.Failures++
		}
	}
	out := junitSuites{Name: "airvsx verify", Tests: suite.Tests, Failures: suite.Failures, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
