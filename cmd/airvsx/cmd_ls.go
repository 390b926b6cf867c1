package main

import (
	"context"
	"fmt"
	"text/tabwriter"

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
		Use: "ls --registry PLACE [--root root.json | --key PREFIX.pub]",
		Example: `  airvsx ls --registry /media/usb/registry --key airvsx.pub
  airvsx ls --registry docker://registry.internal:5000/vsx --root root.json --json`,
		Short: "List the entries of a registry's signed catalog",
		Long: `Ls lists the entries of a registry's catalog, read through the registry's
TUF metadata. With --root or --key the chain is checked from that anchor
(and against the state directory, which ls never writes), as verify checks
it; without one it is checked only against the registry's own first root
(signatures, hashes, versions, expiry), which proves consistency, not who
signed it: the first line then says "not anchored". To check every byte
of every entry, run airvsx verify.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.registry.place == "" {
				return usagef("ls: --registry is required")
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
			if opts.json {
				return g.printJSON(cat)
			}
			fmt.Fprintf(g.stdout, "catalog serial %d, %s, %s, expires %s, %s\n",
				cat.Serial, count(len(cat.Entries), "entry", "entries"), tr.CatalogDigest, tr.Timestamp.Expires.Format("2006-01-02T15:04:05Z"), anchored)
			tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tVERSION\tPLATFORM\tPRE\tSIGNED\tSIZE")
			for _, e := range cat.Entries {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\n", e.ID, e.Version, e.Platform, yesNo(e.PreRelease), yesNo(e.Upstream.Signed), e.VsixSize)
			}
			return tw.Flush()
		},
	}
	opts.registry.add(cmd)
	opts.anchor.add(cmd, true)
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the catalog as JSON")
	return cmd
}

// lsCatalog reads the catalog from the anchor when one was given, else
// through the registry's own chain; anchored says which.
func lsCatalog(ctx context.Context, st store.Store, a *anchorFlags) (*index.Catalog, *trust.Trusted, string, error) {
	if !a.given() {
		cat, tr, err := trust.ReadCatalog(ctx, st, trust.CatalogOptions{})
		if err != nil {
			return nil, nil, "", fmt.Errorf("ls: %w", err)
		}
		return cat, tr, "not anchored (give --key or --root to check who signed it)", nil
	}
	anchor, state, err := a.resolve("ls")
	if err != nil {
		return nil, nil, "", err
	}
	cat, c, err := trust.ReadVerified(ctx, st, anchor, trust.CheckOptions{State: state})
	if err != nil {
		return nil, nil, "", fmt.Errorf("ls: %w", err)
	}
	return cat, c.Trusted, "verified with " + anchor.String(), nil
}
