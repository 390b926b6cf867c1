package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/internal/termtext"
	"github.com/airvsx/airvsx/mirror"
	"github.com/airvsx/airvsx/policies"
)

type addOptions struct {
	registry string
	net      registryNet // --insecure, --allow-insecure-remote, --also-dial, --ca-file (docker:// places)
	key      string
	policy   string
	json     bool
}

func newAddCommand(g *globals) *cobra.Command {
	var opts addOptions
	cmd := &cobra.Command{
		Use: "add FILE.vsix... --registry PLACE --key PREFIX.key [--policy FILE]",
		Example: `  # an in-house extension, and one downloaded by hand
  COSIGN_PASSWORD=... airvsx add acme.tools-1.2.0.vsix ms-python.python-2025.1.0.vsix --registry ./registry --key airvsx.key
  # only what the registry's policy allows
  airvsx add acme.tools-1.2.0.vsix --registry ./registry --key airvsx.key --policy policy.yaml`,
		Short: "Add .vsix files that came from elsewhere to a registry, marked as added locally",
		Long: `Add checks each .vsix as sync checks a download (the safe-zip rules, the
manifests and the identity they agree on, that an entry of the same
identity has the same bytes, that what it depends on is in the registry or
added with it) and, with --policy, whether the policy allows it. The files
that pass are stored and listed in one new catalog, signed with the key
(password in COSIGN_PASSWORD), each marked as added locally: no upstream
signature, added by the signing key, at this time. ls, verify and the site
show the mark, and sync keeps such entries (with --prune too).

A refused file is named with the rule it breaks, quarantined in the
registry and never half-stored; the others are still added, and the exit
status is 1. When nothing is added (every file refused, or the registry
already has each with the same bytes), nothing is signed.

Without --policy no policy decides: every package that passes the checks
is added, and the log says so.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("add: FILE.vsix is missing (want one or more)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAdd(cmd, g, opts, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.registry, "registry", "", "the registry, created if missing (required): a directory (DIR), a git repository (git:PATH[#BRANCH]: one signed commit per add) or an OCI registry (docker://HOST[:PORT]/PREFIX)")
	opts.net.add(cmd, true)
	f.StringVar(&opts.key, "key", "", "the signing key, PREFIX.key from airvsx keygen or a cosign.key (required)")
	f.StringVar(&opts.policy, "policy", "", "the policy that decides which packages are admitted (default: none)")
	f.BoolVar(&opts.json, "json", false, "print the report (added, unchanged, refused, catalog) as JSON")
	return cmd
}

func runAdd(cmd *cobra.Command, g *globals, opts addOptions, files []string) error {
	if opts.registry == "" || opts.key == "" {
		return usagef("add: --registry and --key are required")
	}
	ao := mirror.AddOptions{Files: files, Logger: g.logger()}
	if opts.policy != "" {
		pol, err := policies.Load(opts.policy)
		if err != nil {
			return &usageError{fmt.Errorf("--policy: %w", err)}
		}
		ao.Policy = pol
	}
	ctx, key, err := mirror.StartKey(cmd.Context(), opts.key, []byte(os.Getenv("COSIGN_PASSWORD")))
	if err != nil {
		return fmt.Errorf("--key: %w", err)
	}
	defer key.Stop()
	ao.Signer, opts.net.signer, opts.net.logger = key.Signer(), key.Signer(), ao.Logger
	st, err := openRegistryNet(ctx, opts.registry, true, opts.net)
	if err != nil {
		return err
	}
	defer st.Close()
	ao.Store = st
	rep, err := mirror.Add(ctx, ao)
	err = key.Err(err)
	if err = abandon(ctx, st, opts.registry, "add", err); err != nil {
		return addFailed(err, opts)
	}
	if opts.json {
		if err := g.printJSON(rep); err != nil {
			return err
		}
	} else {
		printAddReport(g.stdout, rep)
	}
	if rep.Failed() {
		return errFailed
	}
	return nil
}

// addFailed is add's error for err: naming the key file and the place
// when the key is not the registry's, and the place when a git history's
// signature fails.
func addFailed(err error, opts addOptions) error {
	if ke := (*trust.KeyError)(nil); errors.As(err, &ke) {
		ke.Registry = opts.registry
		err = fmt.Errorf("--key %s: %w", opts.key, err)
	}
	if errors.Is(err, trust.ErrHistorySignature) {
		err = fmt.Errorf("%s: %w", opts.registry, err)
	}
	return fmt.Errorf("add: %w", err)
}

// printAddReport prints what an add did.
func printAddReport(w io.Writer, rep *mirror.AddReport) {
	esc := termtext.Escape // file names and reasons can carry the package's text
	if rep.Policy == "" {
		fmt.Fprintln(w, "policy: none applied")
	} else {
		fmt.Fprintf(w, "policy: %s\n", rep.Policy)
	}
	for _, a := range rep.Added {
		fmt.Fprintf(w, "added      %s (%s, sha256:%s)\n", esc(a.Entry), esc(a.File), a.SHA256)
	}
	for _, a := range rep.Unchanged {
		fmt.Fprintf(w, "unchanged  %s (%s: the registry has these bytes)\n", esc(a.Entry), esc(a.File))
	}
	for _, r := range rep.Refused {
		name := esc(r.File)
		if r.Entry != "" {
			name += " (" + esc(r.Entry) + ")"
		}
		fmt.Fprintf(w, "refused    %s: %s: %s\n    quarantined in %s\n", name, r.Rule, esc(r.Reason), esc(r.Quarantine))
	}
	switch c := rep.Catalog; {
	case c == nil:
		fmt.Fprintln(w, "nothing added: the registry has no catalog yet")
	case c.Unchanged:
		fmt.Fprintf(w, "nothing added: registry unchanged (serial %d, %s, %s)\n", c.Serial, count(c.Entries, "entry", "entries"), c.Digest)
	default:
		fmt.Fprintf(w, "catalog: serial %d, %s, %s, expires %s\n", c.Serial, count(c.Entries, "entry", "entries"), c.Digest, c.Expires.Format("2006-01-02T15:04:05Z"))
	}
}
