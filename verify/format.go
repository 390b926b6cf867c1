package verify

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/internal/termtext"
)

// formatName explains a catalog's format in the text report.
func formatName(c *CatalogSummary) string {
	if c.Format == index.FlatCatalogFormat {
		return "format 1 (every entry in the catalog file; the next sync shards it)"
	}
	return fmt.Sprintf("format %d (%d %s)", c.Format, c.Shards, plural(c.Shards, "shard", "shards"))
}

// Format is a report format.
type Format string

// The report formats.
const (
	Text  Format = "text"  // for people: a summary line, then problems grouped by entry
	JSON  Format = "json"  // the Report as JSON (REPORT.md)
	SARIF Format = "sarif" // SARIF 2.1.0, for code-scanning UIs
	JUnit Format = "junit" // JUnit XML, one test case per entry, for CI systems
)

// Formats lists every format.
var Formats = []Format{Text, JSON, SARIF, JUnit}

// ParseFormat returns the format named s.
func ParseFormat(s string) (Format, error) {
	if slices.Contains(Formats, Format(s)) {
		return Format(s), nil
	}
	return "", fmt.Errorf("unknown report format %q (want text, json, sarif or junit)", s)
}

// Write writes the report in format f. toolVersion names the airvsx
// version in SARIF's tool.driver.
func (r *Report) Write(w io.Writer, f Format, toolVersion string) error {
	switch f {
	case Text:
		return r.WriteText(w)
	case JSON:
		return r.WriteJSON(w)
	case SARIF:
		return r.WriteSARIF(w, toolVersion)
	case JUnit:
		return r.WriteJUnit(w)
	}
	return fmt.Errorf("unknown report format %q", f)
}

// WriteJSON writes the report as indented JSON (REPORT.md). It writes
// the entries and the problems one at a time, so that a report of
// 200,000 entries is not held in memory a second time as JSON; the
// bytes are those of encoding the whole report with json.Encoder
// (indent "  ", HTML not escaped).
func (r *Report) WriteJSON(w io.Writer) error {
	bw := bufio.NewWriter(w)
	head := *r
	head.Entries, head.Problems = nil, nil
	b, err := indentJSON(struct {
		*Report
		Entries  *struct{} `json:"entries,omitempty"`
		Problems *struct{} `json:"problems,omitempty"`
	}{Report: &head}, "")
	if err != nil {
		return err
	}
	// b is the object without its last two fields: "{ ... }".
	bw.Write(b[:len(b)-2])
	if err := writeJSONArray(bw, "entries", r.Entries); err != nil {
		return err
	}
	if err := writeJSONArray(bw, "problems", r.Problems); err != nil {
		return err
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// writeJSONArray writes ",\n  \"name\": " and the array a, one element at
// a time, as a field of WriteJSON's object.
func writeJSONArray[T any](w *bufio.Writer, name string, a []T) error {
	fmt.Fprintf(w, ",\n  %q: ", name)
	switch {
	case a == nil:
		_, err := w.WriteString("null")
		return err
	case len(a) == 0:
		_, err := w.WriteString("[]")
		return err
	}
	w.WriteString("[")
	for i := range a {
		b, err := indentJSON(a[i], "    ")
		if err != nil {
			return err
		}
		if i > 0 {
			w.WriteString(",")
		}
		w.WriteString("\n    ")
		w.Write(b)
	}
	_, err := w.WriteString("\n  ]")
	return err
}

// indentJSON encodes v as json.Encoder does with indent "  " after
// prefix, HTML not escaped, without the final newline.
func indentJSON(v any, prefix string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// SummaryLine is the report's first line of text: the verdict and the
// counts.
func (r *Report) SummaryLine() string {
	s := r.Summary
	verdict := "ok"
	if !s.OK {
		verdict = "FAILED"
	}
	what := fmt.Sprintf("%d %s", s.Entries, plural(s.Entries, "entry", "entries"))
	if r.Kind == "package" {
		what = "package " + r.Target
	}
	data := fmt.Sprintf("%d %s hashed (%s)", s.Blobs, plural(s.Blobs, "blob", "blobs"), index.FormatBytes(s.Bytes))
	if !s.ReadData {
		data = fmt.Sprintf("%d %s checked by size (--no-read-data)", s.Blobs, plural(s.Blobs, "blob", "blobs"))
	}
	line := fmt.Sprintf("verify %s: %s, %s: %d %s, %d %s", verdict, what, data,
		s.Errors, plural(s.Errors, "error", "errors"), s.Warnings, plural(s.Warnings, "warning", "warnings"))
	if s.Notes > 0 {
		line += fmt.Sprintf(", %d %s", s.Notes, plural(s.Notes, "note", "notes"))
	}
	return line
}

// WriteText writes the report for people: the summary line, what was
// trusted, then the problems grouped by entry (registry-wide ones first),
// each with its fix, and a closing line with the next step.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString(r.SummaryLine() + "\n")
	if c := r.Catalog; c != nil {
		fmt.Fprintf(&b, "catalog: serial %d, %d %s, %s, expires %s, %s\n", c.Serial, c.Entries, plural(c.Entries, "entry", "entries"), c.Digest, c.Expires.Format("2006-01-02T15:04:05Z"), formatName(c))
		b.WriteString(controlLine(c.Control))
	}
	if t := r.Trust; t != nil && t.Verified.Root > 0 {
		fmt.Fprintf(&b, "trust: %s mode%s; root v%d, timestamp v%d, snapshot v%d, targets v%d", t.Mode, map[bool]string{true: " (first use)"}[t.FirstUse],
			t.Verified.Root, t.Verified.Timestamp, t.Verified.Snapshot, t.Verified.Targets)
		if t.Recorded {
			fmt.Fprintf(&b, "; recorded in %s", t.StateDir)
		}
		b.WriteString("\n")
	}
	if t := r.Trust; t != nil && t.Revision != "" {
		fmt.Fprintf(&b, "commit: %s\n", t.Revision)
	}
	if p := r.Package; p != nil {
		signed := "no verified upstream signature"
		if p.Signed {
			signed = "upstream signature verified"
		}
		fmt.Fprintf(&b, "package: sha256 %s, %d bytes, %s\n", p.SHA256, p.Size, signed)
		if v := p.Policy; v != nil {
			fmt.Fprintf(&b, "policy: %s\n", v.Line())
		}
	}
	group := "\x00"
	for _, p := range r.Problems {
		if p.Entry != group {
			group = p.Entry
			name := p.Entry
			if name == "" {
				name = "registry"
			}
			fmt.Fprintf(&b, "\n%s:\n", termtext.Escape(name))
		}
		where := ""
		if p.File != "" {
			where = " " + termtext.Escape(p.File) + ":"
		}
		fmt.Fprintf(&b, "  %s %s:%s %s\n", p.Severity, p.Rule, where, termtext.Escape(p.Message))
		fmt.Fprintf(&b, "    fix: %s\n", p.Fix)
	}
	if !r.Summary.OK {
		b.WriteString("\nThe registry or package must not be used until every error is fixed; warnings are hints.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// controlLine is the text report's line on the control lists.
func controlLine(cs []ControlSummary) string {
	if len(cs) == 0 {
		return "control: no extension control list carried\n"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s (%d malicious, %d deprecated, fetched %s, %s)", c.Origin, c.Malicious, c.Deprecated, c.FetchedAt.Format("2006-01-02T15:04:05Z"), c.Digest)
	}
	return "control: " + strings.Join(parts, "; ") + "\n"
}
