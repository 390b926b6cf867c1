package store

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// The files Quarantine writes beside the rejected ones.
const (
	ReasonFile     = "REASON"      // the reason, as text
	ReasonJSONFile = "reason.json" // QuarantineRecord
)

// MaxQuarantineName is the longest quarantine name: it leaves room for the
// ".N" suffix of a repeated name.
const MaxQuarantineName = 200

// QuarantineRecord is the content of reason.json in a quarantine directory.
type QuarantineRecord struct {
	Name   string           `json:"name"`   // the name asked for
	Reason string           `json:"reason"` // why the files were rejected
	Time   time.Time        `json:"time"`   // when, by the wall clock (UTC)
	Files  []QuarantineFile `json:"files"`  // sorted by name
}

// ReasonFiles returns the content of REASON, the reason as text ending in
// a newline, and of reason.json, the record as indented JSON: what the
// directory store, gitstore and the registry store write beside the
// quarantined files.
func (r *QuarantineRecord) ReasonFiles() (text, record []byte, err error) {
	reason := r.Reason
	if !strings.HasSuffix(reason, "\n") {
		reason += "\n"
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, nil, fmt.Errorf("reason.json: %w", err)
	}
	return []byte(reason), append(b, '\n'), nil
}

// QuarantineFile describes one quarantined file.
type QuarantineFile struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"` // sha256:<hex>
}

// CheckQuarantine checks the names Store.Quarantine is given: name is one
// element [A-Za-z0-9][A-Za-z0-9._-]* of at most 200 bytes (room for a
// ".N" suffix), not a Windows reserved name; every file name is one such
// element of at most 255 bytes, none is REASON or reason.json in any case,
// and no two differ only in case. Errors wrap ErrInvalidName.
func CheckQuarantine(name string, files []string) error {
	if err := checkElement(name); err != nil || len(name) > MaxQuarantineName {
		return fmt.Errorf("quarantine name %q: want one element [A-Za-z0-9][A-Za-z0-9._-]* of at most %d bytes, not a reserved name: %w", name, MaxQuarantineName, ErrInvalidName)
	}
	folded := make(map[string]string)
	for _, f := range files {
		if err := checkElement(f); err != nil {
			return fmt.Errorf("quarantine file %q: %v: %w", f, err, ErrInvalidName)
		}
		lf := strings.ToLower(f)
		if lf == strings.ToLower(ReasonFile) || lf == ReasonJSONFile {
			return fmt.Errorf("quarantine file %q: reserved for the reason: %w", f, ErrInvalidName)
		}
		if other, ok := folded[lf]; ok {
			return fmt.Errorf("quarantine files %q and %q differ only in case: %w", f, other, ErrInvalidName)
		}
		folded[lf] = f
	}
	return nil
}
