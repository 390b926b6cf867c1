package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/internal/termtext"
)

// Loaded is an extensions directory as the host is to run it: every
// record, with the extensions whose record is not sealed or whose folder
// no longer matches disabled.
type Loaded struct {
	Dir        string
	Extensions []Record
	// Warnings says, for each extension Load disabled, why: its record is
	// not sealed, or which file changed.
	Warnings []string
	// Isolation is how the last run isolated the extensions (nil: no
	// run recorded one).
	Isolation *Isolation
}

// Load reads DIR/installed.json (strictly: a damaged file is an error
// naming it; a missing one means nothing is installed) and trusts only
// the records sealed with the seal key of opts.StateDir (SealKeyFile;
// Load never makes one): a record whose seal is missing or does not
// verify, or every record when there is no key, is disabled in the
// result without its grants (Capabilities, AllowedHosts, Programs), with
// a reason and a warning. Then it checks every enabled extension's folder
// against its recorded files (TreeHash): one that is missing or whose
// files changed is disabled in the result, with a reason and a warning
// naming the first file that differs. Load writes nothing: the checks
// run on every load, so such an extension stays disabled until it is
// installed again.
func Load(ctx context.Context, dir string, opts DirOptions) (*Loaded, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("extensions directory: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("extensions directory %s: not a directory", dir)
	}
	key, err := readSealKey(opts.StateDir)
	if err != nil {
		return nil, err
	}
	x, warnings, err := readIndex(dir, key)
	if err != nil {
		return nil, err
	}
	iso, err := readIsolation(dir)
	if err != nil {
		return nil, err
	}
	l := &Loaded{Dir: dir, Extensions: x.Extensions, Warnings: warnings, Isolation: iso}
	for i := range l.Extensions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r := &l.Extensions[i]
		if !r.Enabled {
			continue
		}
		folder := filepath.Join(dir, r.Dir)
		var change string
		if _, err := os.Lstat(folder); errors.Is(err, fs.ErrNotExist) {
			change = "its folder " + r.Dir + " is missing"
		} else if change, err = treeChange(folder, r.Files); err != nil {
			change = fmt.Sprintf("its folder cannot be checked: %v", err)
		} else if change != "" {
			change = "its files changed since install: " + r.Dir + "/" + change
		}
		if change != "" {
			r.Enabled, r.Reason = false, change+" (install it again)"
			l.Warnings = append(l.Warnings, fmt.Sprintf("%s disabled: %s", r, change))
		}
	}
	return l, nil
}

// Find returns the loaded record of id, or nil.
func (l *Loaded) Find(id index.ID) *Record {
	for i := range l.Extensions {
		if l.Extensions[i].ID.Equal(id) {
			return &l.Extensions[i]
		}
	}
	return nil
}

// Listing is one line of a listing: what `airvsx list` shows.
type Listing struct {
	ID             index.ID       `json:"id"`
	Version        string         `json:"version"`
	Platform       index.Platform `json:"platform"`
	Dir            string         `json:"dir"`
	State          string         `json:"state"` // "enabled" or "disabled"
	Reason         string         `json:"reason,omitempty"`
	Source         Source         `json:"source"`
	Capabilities   []Grant        `json:"capabilities"`
	AllowedHosts   []string       `json:"allowedHosts,omitempty"`
	Programs       []string       `json:"programs,omitempty"`
	Eager          bool           `json:"eager"`
	Activation     []string       `json:"activationEvents"`
	Installed      time.Time      `json:"installed"`
	LastActivation time.Time      `json:"lastActivation,omitzero"`
}

// List returns the listing of every extension, sorted by ID.
func (l *Loaded) List() []Listing {
	out := make([]Listing, 0, len(l.Extensions))
	for _, r := range l.Extensions {
		state := "enabled"
		if !r.Enabled {
			state = "disabled"
		}
		caps := r.Capabilities
		if caps == nil {
			caps = []Grant{}
		}
		act := r.Activation
		if act == nil {
			act = []string{}
		}
		out = append(out, Listing{ID: r.ID, Version: r.Version, Platform: r.Platform, Dir: r.Dir, State: state, Reason: r.Reason,
			Source: r.Source, Capabilities: caps, AllowedHosts: r.AllowedHosts, Programs: r.Programs, Eager: r.Eager, Activation: act, Installed: r.Installed, LastActivation: r.LastActivation})
	}
	return out
}

// WriteText writes the listing as a table, then the reasons of disabled
// extensions.
func (l *Loaded) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tVERSION\tPLATFORM\tSTATE\tSOURCE\tCAPABILITIES\tEAGER\tLAST ACTIVATION")
	for _, e := range l.List() {
		src := e.Source.Kind
		switch e.Source.Kind {
		case SourceRegistry:
			src = fmt.Sprintf("%s (serial %d)", e.Source.Registry, e.Source.CatalogSerial)
		case SourceLocalFile:
			src = "local file " + e.Source.File
		}
		var caps []string
		for _, g := range e.Capabilities {
			c := string(g.Capability)
			switch {
			case g.Capability == index.Network && len(e.AllowedHosts) > 0:
				c += " [" + strings.Join(e.AllowedHosts, " ") + "]"
			case g.Capability == index.Spawn && len(e.Programs) > 0:
				c += " [" + strings.Join(e.Programs, " ") + "]"
			}
			caps = append(caps, c+" by "+g.Rule)
		}
		capStr := "-"
		if len(caps) > 0 {
			capStr = strings.Join(caps, ", ")
		}
		eager := "no"
		switch {
		case e.Eager:
			eager = "yes (*)"
		case slices.Contains(e.Activation, "onStartupFinished"):
			eager = "yes (onStartupFinished)"
		case slices.ContainsFunc(e.Activation, func(a string) bool { return strings.HasPrefix(a, "workspaceContains:") }):
			eager = "if the workspace matches (workspaceContains)"
		}
		last := "never"
		if !e.LastActivation.IsZero() {
			last = e.LastActivation.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, e.Version, e.Platform, e.State, src, capStr, eager, last)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// The commands each extension provides (what run --command takes).
	for _, e := range l.List() {
		var cmds []string
		for _, a := range e.Activation {
			if c, ok := strings.CutPrefix(a, "onCommand:"); ok {
				cmds = append(cmds, termtext.Escape(c))
			}
		}
		if len(cmds) > 12 {
			cmds = append(cmds[:12], fmt.Sprintf("… (%d more)", len(cmds)-12))
		}
		if len(cmds) > 0 {
			if _, err := fmt.Fprintf(w, "%s commands: %s\n", e.ID, strings.Join(cmds, ", ")); err != nil {
				return err
			}
		}
	}
	for _, e := range l.List() {
		if e.State == "disabled" {
			if _, err := fmt.Fprintf(w, "%s disabled: %s\n", e.ID, e.Reason); err != nil {
				return err
			}
		}
	}
	if l.Isolation != nil {
		if _, err := fmt.Fprintf(w, "isolation: %s\n", l.Isolation); err != nil {
			return err
		}
	}
	return nil
}
