package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/spf13/cobra"
)

type lsOptions struct {
	registry registryFlags // --registry and the network flags of a docker:// place
	anchor   anchorFlags
	json     bool
}

func newLsCommand(g *globals) *cobra.Command {
	var opts lsOptions
	cmd := &cobra.Command{
		Use: "ls [ID[@VERSION]] --registry PLACE [--root root.json | --key PREFIX.pub]",
		Example: `  airvsx ls --registry /media/usb/registry --key airvsx.pub
  airvsx ls redhat.vscode-yaml --registry /media/usb/registry --key airvsx.pub
  airvsx ls --registry docker://registry.internal:5000/vsx --root root.json --json`,
		Short: "List the entries of a registry's signed catalog",
		Long: `Ls lists the entries of a registry's catalog, read through the registry's
TUF metadata. With --root or --key the chain is checked from that anchor
(and against the state directory, which ls never writes), as verify checks
it; without one it is checked only against the registry's own first root
(signatures, hashes, versions, expiry), which proves consistency, not who
signed it: the first line then says "not anchored". To check every byte
of every entry, run airvsx verify.

With ID (publisher.name, any case), only that extension's entries are
listed, and with ID@VERSION only that version's (one per platform); ls
exits 1 when the catalog has none. With --json, ID prints the matching
entries as a JSON array (the whole catalog otherwise).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.registry.place == "" {
				return usagef("ls: --registry is required")
			}
			var want lsFilter
			if len(args) == 1 {
				f, err := parseLsFilter(args[0])
				if err != nil {
					return usagef("ls: %v", err)
				}
				want = f
			}
			st, err := opts.registry.open(cmd.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			cat, tr, anchored, err := lsCatalog(cmd.Context(), st, &opts.anchor)
			if err != nil {
				return err
			}
			total := cat.EntryCount()
			var entries []index.Entry
			if want.set {
				// Only the shard of that extension is read.
				all, err := tr.Lookup(cmd.Context(), cat, want.id)
				if err != nil {
					return fmt.Errorf("ls: %w", err)
				}
				entries = want.pick(all)
				if len(entries) == 0 {
					return fmt.Errorf("ls: %s: %w in catalog serial %d (airvsx ls --registry %s lists every entry)", args[0], errNoEntry, cat.Serial, opts.registry.place)
				}
				if opts.json {
					return g.printJSON(entries)
				}
			} else {
				if cat, err = tr.Decode(cmd.Context()); err != nil {
					return fmt.Errorf("ls: %w", err)
				}
				if opts.json {
					return g.printJSON(cat)
				}
				entries = cat.Entries
			}
			fmt.Fprintf(g.stdout, "catalog serial %d, %s, %s, expires %s, %s\n",
				cat.Serial, count(total, "entry", "entries"), tr.CatalogDigest, tr.Timestamp.Expires.Format("2006-01-02T15:04:05Z"), anchored)
			return printEntries(g.stdout, entries)
		},
	}
	opts.registry.add(cmd)
	opts.anchor.add(cmd, true)
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the catalog as JSON")
	return cmd
}

// printEntries prints one line an entry: ID, version, platform, whether it
// is a pre-release, whether upstream signed it ("local" for an entry added
// by hand) and its size; an entry added by hand also says by which key
// and when.
func printEntries(w io.Writer, entries []index.Entry) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := "ID\tVERSION\tPLATFORM\tPRE\tSIGNED\tSIZE"
	if slices.ContainsFunc(entries, func(e index.Entry) bool { return e.Local != nil }) {
		header += "\tORIGIN"
	}
	fmt.Fprintln(tw, header)
	for _, e := range entries {
		signed := yesNo(e.Upstream.Signed)
		if e.Local != nil {
			signed = "local"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d", e.ID, e.Version, e.Platform, yesNo(e.PreRelease), signed, e.VsixSize)
		if l := e.Local; l != nil {
			fmt.Fprintf(tw, "\tadded locally by key %s at %s", l.AddedBy, l.AddedAt.Format(time.RFC3339))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// lsCatalog reads the catalog's head from the anchor when one was given,
// else through the registry's own chain; anchored says which.
func lsCatalog(ctx context.Context, st store.Store, a *anchorFlags) (*index.Catalog, *trust.Trusted, string, error) {
	if !a.given() {
		cat, tr, err := trust.OpenCatalog(ctx, st, trust.CatalogOptions{})
		if err != nil {
			return nil, nil, "", fmt.Errorf("ls: %w", err)
		}
		return cat, tr, "not anchored (give --key or --root to check who signed it)", nil
	}
	anchor, state, err := a.resolve("ls")
	if err != nil {
		return nil, nil, "", err
	}
	cat, c, err := trust.OpenVerified(ctx, st, anchor, trust.CheckOptions{State: state})
	if err != nil {
		return nil, nil, "", fmt.Errorf("ls: %w", err)
	}
	return cat, c.Trusted, "verified with " + anchor.String(), nil
}

// lsFilter is the ID[@VERSION] ls was given, if any (set).
type lsFilter struct {
	set     bool
	id      index.ID
	version string // "" for every version
}

// parseLsFilter parses ID[@VERSION].
func parseLsFilter(arg string) (lsFilter, error) {
	s, version, hasVersion := strings.Cut(arg, "@")
	id, err := index.ParseID(s)
	if err != nil {
		return lsFilter{}, fmt.Errorf("%q: %w (want publisher.name[@VERSION])", arg, err)
	}
	if hasVersion && version == "" {
		return lsFilter{}, fmt.Errorf("%q: no version after @ (want publisher.name[@VERSION])", arg)
	}
	return lsFilter{set: true, id: id, version: version}, nil
}

// pick returns the entries f names, in the catalog's order.
func (f lsFilter) pick(entries []index.Entry) []index.Entry {
	out := []index.Entry{}
	for _, e := range entries {
		if e.ID.Equal(f.id) && (f.version == "" || e.Version == f.version) {
			out = append(out, e)
		}
	}
	return out
}
