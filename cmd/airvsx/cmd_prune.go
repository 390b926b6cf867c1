package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/internal/termtext"
	"github.com/airvsx/airvsx/policies"
	"github.com/airvsx/airvsx/prune"
)

type pruneOptions struct {
	registry string
	net      registryNet
	key      string
	policy   string
	dryRun   bool
	json     bool
}

func newPruneCommand(g *globals) *cobra.Command {
	var opts pruneOptions
	cmd := &cobra.Command{
		Use: "prune --registry PLACE --key PREFIX.key --policy FILE",
		Example: `  # what a policy change would remove, and the bytes it would free
  airvsx prune --registry ./registry --policy policy.yaml --dry-run
  COSIGN_PASSWORD=... airvsx prune --registry ./registry --key airvsx.key --policy policy.yaml`,
		Short: "Remove the entries a policy no longer selects, and free their bytes",
		Long: `Prune decides every entry of the registry's catalog with the policy, offline
(a rule's latest: N keeps the newest N versions; the policy's dependency
closure counts as selected), signs the catalog without the entries it drops
as the next serial, with the key (password in COSIGN_PASSWORD), removes
their tags, and then deletes every blob nothing refers to any more, as
"gc" does. An entry the policy drops but that a kept entry depends on is
kept, and listed as needed.

It prints each entry removed with the bytes removing it frees, then the
totals. --dry-run prints the same and writes nothing.

sync never deletes on its own; prune is the command that does.

Exit status: 0 pruned (or nothing to prune), 2 usage or I/O errors.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runPrune(cmd, g, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.registry, "registry", "", placeHelp+" (required)")
	opts.net.add(cmd, true)
	f.StringVar(&opts.key, "key", "", "the signing key, PREFIX.key from airvsx keygen (required unless --dry-run)")
	f.StringVar(&opts.policy, "policy", "", "the policy file (required)")
	f.BoolVarP(&opts.dryRun, "dry-run", "n", false, "print what would be removed and the bytes, and write nothing")
	f.BoolVar(&opts.json, "json", false, "print the report as JSON")
	return cmd
}

func runPrune(cmd *cobra.Command, g *globals, opts pruneOptions) error {
	if opts.registry == "" || opts.policy == "" {
		return usagef("prune: --registry and --policy are required")
	}
	if opts.key == "" && !opts.dryRun {
		return usagef("prune: --key is required (or --dry-run)")
	}
	pol, err := policies.Load(opts.policy)
	if err != nil {
		return &usageError{fmt.Errorf("--policy: %w", err)}
	}
	po := prune.Options{Policy: pol, DryRun: opts.dryRun, Logger: g.logger(), Waiting: waitingForReaders(g, opts.registry)}
	if !opts.dryRun {
		signer, err := trust.LoadSigner(opts.key, []byte(os.Getenv("COSIGN_PASSWORD")))
		if err != nil {
			return fmt.Errorf("--key: %w", err)
		}
		po.Signer, opts.net.signer = signer, signer
	}
	opts.net.logger = g.logger()
	ctx := cmd.Context()
	st, err := openRegistryNet(ctx, opts.registry, !opts.dryRun, opts.net)
	if err != nil {
		return err
	}
	defer st.Close()
	po.Store = st
	rep, err := prune.Prune(ctx, po)
	if err != nil {
		if ke := (*trust.KeyError)(nil); errors.As(err, &ke) {
			ke.Registry = opts.registry
			err = fmt.Errorf("--key %s: %w", opts.key, err)
		}
		return err
	}
	if opts.json {
		return g.printJSON(rep)
	}
	printPrune(g.stdout, rep)
	return nil
}

// printPrune prints what a prune did, or would do.
func printPrune(w io.Writer, rep *prune.Report) {
	esc := termtext.Escape // reasons carry names from the catalog
	fmt.Fprintf(w, "catalog serial %d: the policy keeps %s, drops %d\n", rep.Serial, count(rep.Kept, "entry", "entries"), len(rep.Dropped))
	for _, d := range rep.Dropped {
		fmt.Fprintf(w, "  remove  %s: %s; frees %s (%d bytes)\n", esc(d.Entry), esc(d.Reason), index.FormatBytes(d.Bytes), d.Bytes)
	}
	for _, n := range rep.Needed {
		fmt.Fprintf(w, "  keep    %s\n", esc(n.String()))
	}
	if rep.NewSerial != 0 {
		fmt.Fprintf(w, "catalog: serial %d, %s, %s\n", rep.NewSerial, count(rep.Kept, "entry", "entries"), rep.Digest)
	}
	verb := "removed"
	if rep.DryRun {
		verb = "would remove"
	}
	fmt.Fprintf(w, "%s %s\n", verb, count(len(rep.Dropped), "entry", "entries"))
	printCollect(w, rep.GC)
}
