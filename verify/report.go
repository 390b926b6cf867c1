package verify

import (
	"cmp"
	"encoding/json"
	"slices"
	"time"

	"github.com/airvsx/airvsx/index/problem"
	"github.com/airvsx/airvsx/index/trust"
)

// SchemaVersion is the value of Report.Schema: the version of the JSON
// report's schema (REPORT.md). Fields are only ever added within a version.
const SchemaVersion = "airvsx.verify/v1"

// Severity says whether a problem fails the verification: index/problem's
// Severity, encoded as "error", "warning" or "note".
type Severity = problem.Severity

const (
	// Error: the registry or package must not be used; exit status 1.
	Error = problem.Error
	// Warning: a hint that deserves a look (an orphaned file or tag); it
	// never fails the verification.
	Warning = problem.Warning
	// Note: a fact worth stating (an entry added by hand, with no
	// upstream signature); it fails nothing and is not a warning.
	Note = problem.Note
)

// Problem is one finding: a problem.Problem (its Severity, Rule, File and
// Message; Field is not used) with the catalog entry it belongs to and
// the fix. File is the file in the registry (slash path relative to its
// root, e.g. "metadata/timestamp.json" or
// "extensions/ns/name/blobs/sha256/<hex>"), or the archive entry of a
// single package; Entry names the catalog entry ("ns.name@version" plus
// "@platform" when not universal), empty for registry-wide problems. Its
// JSON is the report's (REPORT.md): severity, rule, path, entry, message,
// fix.
type Problem struct {
	problem.Problem
	Entry string
	Fix   string
}

// newProblem is the finding of rule at path (for entry).
func newProblem(sev Severity, rule Rule, path, entry, msg, fix string) Problem {
	return Problem{Problem: problem.Problem{Severity: sev, Rule: rule, File: path, Message: msg}, Entry: entry, Fix: fix}
}

// problemJSON is a Problem as the report encodes it.
type problemJSON struct {
	Severity Severity `json:"severity"`
	Rule     Rule     `json:"rule"`
	Path     string   `json:"path,omitempty"`
	Entry    string   `json:"entry,omitempty"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix"`
}

// MarshalJSON encodes the problem as the report's schema has it.
func (p Problem) MarshalJSON() ([]byte, error) {
	return json.Marshal(problemJSON{p.Severity, p.Rule, p.File, p.Entry, p.Message, p.Fix})
}

// UnmarshalJSON decodes a problem of a report.
func (p *Problem) UnmarshalJSON(b []byte) error {
	var j problemJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*p = newProblem(j.Severity, j.Rule, j.Path, j.Entry, j.Message, j.Fix)
	return nil
}

// CatalogSummary describes the verified catalog.
type CatalogSummary struct {
	Serial   int64     `json:"serial"`
	Digest   string    `json:"digest"`   // sha256:<hex> of the catalog bytes
	Previous string    `json:"previous"` // the catalog's hash-chain link, "" for the first
	Created  time.Time `json:"created"`
	Expires  time.Time `json:"expires"` // the timestamp role's expiry: re-sign before it
	Entries  int       `json:"entries"`
	// Format is the catalog's format: 2, a head and its shards (Shards
	// of them), or 1, every entry in the catalog file (the next sync
	// upgrades it).
	Format int `json:"format"`
	Shards int `json:"shards"`
	// Control lists the extension control lists (kill lists) the catalog
	// pins; none when it carries none.
	Control []ControlSummary `json:"control"`
}

// ControlSummary is one extension control list a catalog pins.
type ControlSummary struct {
	Origin     string    `json:"origin"`
	Source     string    `json:"source"`
	FetchedAt  time.Time `json:"fetchedAt"`
	Digest     string    `json:"digest"`
	File       string    `json:"file"`
	Malicious  int       `json:"malicious"`
	Deprecated int       `json:"deprecated"`
}

// TrustSummary says where trust came from and what was recorded.
type TrustSummary struct {
	// Mode is "root" (--root pinned a root.json), "key" (--key: the
	// registry's first root, trusted on first use because that key signed
	// it, or the root pinned in the state directory since).
	Mode string `json:"mode"`
	// FirstUse is set when this run trusted the registry's root for the
	// first time (key mode without a pinned root).
	FirstUse bool `json:"firstUse"`
	// StateDir is the directory of this registry's recorded state, ""
	// when no state directory is used.
	StateDir string `json:"stateDir,omitempty"`
	// Previous is the state recorded before this run (zero when none).
	Previous trust.State `json:"previous"`
	// Verified is the state of the chain this run verified (zero when it
	// did not verify).
	Verified trust.State `json:"verified"`
	// Recorded reports whether Verified (and the catalog's serial and
	// digest) were written to StateDir.
	Recorded bool `json:"recorded"`
	// Revision is the commit read, for a registry kept as a signed
	// history (a git store); "" otherwise.
	Revision string `json:"revision,omitempty"`
}

// Summary counts what was checked and found.
type Summary struct {
	OK       bool  `json:"ok"` // no errors
	Entries  int   `json:"entries"`
	EntryOK  int   `json:"entriesOk"` // entries without an error
	Blobs    int   `json:"blobs"`     // blobs checked (by hash, or by size with NoReadData), each once however many entries share it
	Bytes    int64 `json:"bytes"`     // their bytes, hashed (0 with NoReadData)
	ReadData bool  `json:"readData"`  // every blob was hashed
	Errors   int   `json:"errors"`
	Warnings int   `json:"warnings"`
	// Notes counts the notes: facts that fail nothing (an entry added
	// by hand).
	Notes int `json:"notes,omitempty"`
	// SignaturesVerified counts the upstream Ed25519 signatures of a
	// registry checked over their vsix in this run; SignaturesCached those
	// whose valid verdict came from the signature cache instead (the vsix
	// still hashed).
	SignaturesVerified int `json:"signaturesVerified"`
	SignaturesCached   int `json:"signaturesCached"`
}

// EntryResult is the outcome for one catalog entry (or the single
// package): one JUnit test case.
type EntryResult struct {
	Entry    string `json:"entry"`
	Manifest string `json:"manifest,omitempty"` // path of the manifest blob
	Errors   int    `json:"errors"`
	Warnings int    `json:"warnings"`
}

// Report is everything one verification found.
type Report struct {
	Schema   string          `json:"schema"` // SchemaVersion
	Kind     string          `json:"kind"`   // "registry" or "package"
	Target   string          `json:"target"` // the registry directory or the .vsix path, as given
	Catalog  *CatalogSummary `json:"catalog,omitempty"`
	Trust    *TrustSummary   `json:"trust,omitempty"`
	Package  *PackageSummary `json:"package,omitempty"`
	Summary  Summary         `json:"summary"`
	Entries  []EntryResult   `json:"entries"`
	Problems []Problem       `json:"problems"`
}

// OK reports whether the verification found no error.
func (r *Report) OK() bool { return r.Summary.Errors == 0 }

// Errors returns the error-severity problems.
func (r *Report) Errors() []Problem { return problem.Filter(r.Problems, Error) }

// Warnings returns the warnings.
func (r *Report) Warnings() []Problem { return problem.Filter(r.Problems, Warning) }

// finish sorts the problems (registry-wide first, then by entry, errors
// before warnings, then by path and rule) and fills the counts. The
// report keeps entries: the caller hands them over.
func (r *Report) finish(entries []EntryResult) {
	slices.SortStableFunc(r.Problems, func(a, b Problem) int {
		return cmp.Or(
			cmp.Compare(a.Entry, b.Entry),
			cmp.Compare(sevRank(a.Severity), sevRank(b.Severity)),
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Message, b.Message),
		)
	})
	r.Problems = slices.Compact(r.Problems)
	if r.Problems == nil {
		r.Problems = []Problem{}
	}
	byEntry := map[string]*EntryResult{}
	r.Entries = entries
	if r.Entries == nil {
		r.Entries = []EntryResult{}
	}
	for i := range r.Entries {
		r.Entries[i].Errors, r.Entries[i].Warnings = 0, 0
		byEntry[r.Entries[i].Entry] = &r.Entries[i]
	}
	s := &r.Summary
	s.Errors, s.Warnings, s.Notes = 0, 0, 0
	for _, p := range r.Problems {
		er := byEntry[p.Entry]
		switch p.Severity {
		case Error:
			s.Errors++
			if er != nil {
				er.Errors++
			}
		case Note:
			s.Notes++
		default:
			s.Warnings++
			if er != nil {
				er.Warnings++
			}
		}
	}
	s.Entries = len(r.Entries)
	s.EntryOK = 0
	for _, e := range r.Entries {
		if e.Errors == 0 {
			s.EntryOK++
		}
	}
	s.OK = s.Errors == 0
}

func sevRank(s Severity) int {
	switch s {
	case Error:
		return 0
	case Note:
		return 2
	}
	return 1
}
