package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/index/store"
)

type lsOptions struct {
	registry string
	json     bool
}

func newLsCommand(g *globals) *cobra.Command {
	var opts lsOptions
	cmd := &cobra.Command{
		Use:   "ls --registry DIR",
		Short: "List the entries of a registry's signed catalog",
		Long: `Ls lists the entries of a registry's catalog. The catalog is read through
the registry's TUF metadata, checked against the registry's own first
root (signatures, hashes, versions, expiry); to check it against a key or
root you trust, and every byte of every entry, run airvsx verify.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.registry == "" {
				return usagef("ls: --registry is required")
			}
			st, err := openRegistry(opts.registry, false)
			if err != nil {
				return err
			}
			defer st.Close()
			cat, tr, err := store.ReadCatalog(cmd.Context(), st, store.CatalogOptions{})
			if err != nil {
				return fmt.Errorf("ls: %w", err)
			}
			if opts.json {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(cat)
			}
			fmt.Fprintf(g.stdout, "catalog serial %d, %d entries, %s, expires %s\n",
				cat.Serial, len(cat.Entries), tr.CatalogDigest, tr.Timestamp.Expires.Format("2006-01-02T15:04:05Z"))
			tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tVERSION\tPLATFORM\tPRE\tSIGNED\tSIZE")
			for _, e := range cat.Entries {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\n", e.ID, e.Version, e.Platform, yesNo(e.PreRelease), yesNo(e.Upstream.Signed), e.VsixSize)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&opts.registry, "registry", "", "the registry directory")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the catalog as JSON")
	return cmd
}
