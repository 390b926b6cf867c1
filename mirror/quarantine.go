package mirror

// Rejection: a download that fails verification goes to the registry's
// quarantine with the reason, and the run goes on.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/vsix"
)

// RejectError says a download failed verification; its files went to
// quarantine.
type RejectError struct {
	Item   string `json:"item"`   // ns.name@version[@platform]
	Reason string `json:"reason"` // what failed, for people
	Path   string `json:"path"`   // where the quarantined files are, in the registry ("quarantine/<name>")
}

func (e *RejectError) Error() string {
	return fmt.Sprintf("%s: rejected: %s (quarantined in %s)", e.Item, e.Reason, e.Path)
}

// reject quarantines the item's files with the reason.
func (f *fetcher) reject(ctx context.Context, it *Item, files *itemFiles, reason string) error {
	qf := map[string]io.Reader{}
	if files.meta != nil {
		qf["openvsx.json"] = bytes.NewReader(files.meta)
	}
	if files.upSum != "" {
		qf["upstream.sha256"] = strings.NewReader(files.upSum)
	}
	if files.sigzip != nil {
		qf["upstream.sigzip"] = bytes.NewReader(files.sigzip)
	}
	if files.vsixPath != "" {
		if vf, err := os.Open(files.vsixPath); err == nil {
			defer vf.Close()
			qf[store.QuarantineName(fileName(it))] = vf
		}
	}
	name := store.QuarantineName(strings.ReplaceAll(strings.ToLower(it.String()), "@", "-"))
	p, err := f.store.Quarantine(ctx, name, reason, qf)
	if err != nil {
		return fmt.Errorf("quarantine %s (%s): %w", it, reason, err)
	}
	f.log.Warn("rejected", "ext", it.String(), "reason", reason, "quarantine", p)
	return &RejectError{Item: it.String(), Reason: reason, Path: p}
}

func problemsText(ps []vsix.Problem) string {
	var parts []string
	for _, p := range ps {
		parts = append(parts, p.String())
	}
	return strings.Join(parts, "; ")
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
