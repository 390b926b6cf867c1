package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/airvsx/airvsx/hostlaunch/install"
	"github.com/airvsx/airvsx/index/store/place"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/internal/termtext"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/internal/safefile"
	"github.com/airvsx/airvsx/mirror"
	"github.com/airvsx/airvsx/policies"
)

// readControlFiles reads the admin's own control lists the policy names
// (control.files, relative to the policy file's folder), for sync to
// check and carry.
func readControlFiles(policyFile string, pol *policies.Policy) ([]mirror.ControlFile, error) {
	var out []mirror.ControlFile
	for _, f := range pol.Control.Files {
		path := f
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(policyFile), f)
		}
		data, err := safefile.ReadFile(path, index.MaxControlBytes)
		if err != nil {
			return nil, fmt.Errorf("--policy: control.files: %w (the policy's folder is where relative paths start)", err)
		}
		out = append(out, mirror.ControlFile{Origin: policies.ControlOrigin(f), Source: filepath.Base(f), Data: data})
	}
	return out, nil
}

// refreshControl returns the extension control lists the extensions
// directory dir enforces (nil: none), first brought up to date from the
// registry they came from when that is on this machine (a directory or a
// git repository; never a docker:// one: run and list dial nothing) and
// verifies from the anchor recorded with them: a newer catalog's lists
// replace them (after a copy carried a new list across), an older
// catalog's are refused (rollback) and the ones recorded stay.
func refreshControl(ctx context.Context, log *slog.Logger, dir string) (*install.ControlState, error) {
	st, err := install.LoadControl(dir, install.DirOptions{})
	if err != nil || st == nil {
		return st, err
	}
	keep := func(why string, err error) (*install.ControlState, error) {
		log.Warn("the control lists were not read again from their registry: "+why+"; the lists recorded are enforced",
			"registry", st.Registry, "serial", st.Serial, "err", err)
		return st, nil
	}
	if _, k, err := place.Parse(st.Registry); err != nil || !k.Local {
		return st, nil
	}
	reg, err := openRegistry(st.Registry, false)
	if err != nil {
		return keep("the registry cannot be opened", err)
	}
	defer reg.Close()
	anchor := trust.Anchor{Root: st.RootJSON, RootName: "the root recorded in " + install.ControlFile}
	if st.KeyPEM != "" {
		v, err := trust.ParseVerifier(install.ControlFile, []byte(st.KeyPEM))
		if err != nil {
			return keep("the recorded key does not parse", err)
		}
		anchor = trust.Anchor{Key: v}
	}
	var state *trust.StateDir
	if d, err := trust.DefaultStateDir(); err == nil {
		state = trust.OpenStateDir(d)
	}
	c, err := trust.Check(ctx, reg, anchor, trust.CheckOptions{State: state})
	if err != nil {
		return keep("the registry does not verify", err)
	}
	head, err := c.Head()
	if err != nil {
		return keep("its catalog does not decode", err)
	}
	next, err := install.ControlStateOf(ctx, c.Trusted, head, c.CatalogDigest, st.Registry, anchor)
	if err != nil {
		return keep("its control lists do not verify", err)
	}
	if len(next.Lists) == 0 {
		return st, nil
	}
	changed, err := install.UpdateControl(ctx, dir, *next, install.DirOptions{Logger: log})
	if err != nil {
		return keep("they are older than those recorded", err)
	}
	if !changed {
		return st, nil
	}
	log.Info("control lists updated from the registry", "registry", st.Registry, "serial", next.Serial)
	return install.LoadControl(dir, install.DirOptions{})
}

// controlRefusals returns, for each enabled extension of l that the
// lists in st refuse (malicious, or deprecated with install disallowed)
// and no recorded override allows, why; overridden ones are logged.
func controlRefusals(log *slog.Logger, st *install.ControlState, l *install.Loaded) ([]string, error) {
	if st == nil {
		return nil, nil
	}
	set, err := st.Set()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range l.Extensions {
		if !r.Enabled {
			continue
		}
		v := set.Verdict(r.ID)
		if !v.Refuses() {
			continue
		}
		if a, ok := st.Allowed(r.ID); ok {
			log.Warn("control list overridden by the policy", "ext", r.ID.String(), "verdict", v.String(), "reason", a.Reason)
			continue
		}
		out = append(out, fmt.Sprintf("%s is %s (catalog serial %d)", r.ID, v, st.Serial))
	}
	return out, nil
}

// errControlRefused is run's refusal of extensions a control list names.
var errControlRefused = errors.New("an installed extension is named by the extension control list")

// checkControl is run's gate: the control lists brought up to date, then
// a refusal naming every installed extension they refuse, and what to do.
func checkControl(ctx context.Context, log *slog.Logger, dir string) error {
	st, err := refreshControl(ctx, log, dir)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	l, err := install.Load(ctx, dir, install.DirOptions{})
	if err != nil {
		return nil // session.Open says what is wrong with the directory
	}
	refused, err := controlRefusals(log, st, l)
	if err != nil || len(refused) == 0 {
		return err
	}
	return fmt.Errorf("run: %w:\n  %s\n  nothing was started: uninstall it (%s), or, if the list is wrong for you, override it in the policy's control: allow: - {id: ID, reason: WHY} and install it again with --policy",
		errControlRefused, strings.Join(refused, "\n  "), commandLine("airvsx", "uninstall", "ID", "--extensions", dir))
}

// controlFlag is an installed extension a control list names, as list
// shows it.
type controlFlag struct {
	ID      string `json:"id"`
	Verdict string `json:"verdict"`
	// Refused says run refuses it; Override is the policy's reason when
	// an override allows it.
	Refused  bool   `json:"refused"`
	Override string `json:"override,omitempty"`
	Serial   int64  `json:"catalogSerial"`
}

// controlFlags returns the installed extensions of l the control lists
// name (refreshControl first).
func controlFlags(ctx context.Context, log *slog.Logger, dir string, l *install.Loaded) ([]controlFlag, error) {
	st, err := refreshControl(ctx, log, dir)
	if err != nil || st == nil {
		return []controlFlag{}, err
	}
	set, err := st.Set()
	if err != nil {
		return nil, err
	}
	out := []controlFlag{}
	for _, r := range l.Extensions {
		v := set.Verdict(r.ID)
		if !v.Listed() {
			continue
		}
		f := controlFlag{ID: r.ID.String(), Verdict: v.String(), Refused: v.Refuses(), Serial: st.Serial}
		if a, ok := st.Allowed(r.ID); ok && v.Refuses() {
			f.Refused, f.Override = false, a.Reason
		}
		out = append(out, f)
	}
	return out, nil
}

// writeControlFlags prints list's lines on the flagged extensions.
func writeControlFlags(w io.Writer, flags []controlFlag) {
	for _, f := range flags {
		switch {
		case f.Override != "":
			fmt.Fprintf(w, "control list: %s is %s; overridden by the policy: %s\n", f.ID, termtext.Escape(f.Verdict), termtext.Escape(f.Override))
		case f.Refused:
			fmt.Fprintf(w, "control list: %s is %s; run refuses it: uninstall it\n", f.ID, termtext.Escape(f.Verdict))
		default:
			fmt.Fprintf(w, "control list: %s is %s\n", f.ID, termtext.Escape(f.Verdict))
		}
	}
}
