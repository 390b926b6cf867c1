package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/internal/atomicfile"
	"github.com/airvsx/airvsx/internal/safefile"

	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/place"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/index/vsix"
	"github.com/airvsx/airvsx/policies"
	"github.com/airvsx/airvsx/verify"
)

type verifyOptions struct {
	registry   registryFlags // --registry and the network flags of a docker:// place
	anchor     anchorFlags
	policy     string
	format     string
	json       bool
	output     string
	noReadData bool
	noCache    bool
	sigzip     string
	openvsxKey string
	saveState  string
}

func newVerifyCommand(g *globals) *cobra.Command {
	var opts verifyOptions
	cmd := &cobra.Command{
		Use: "verify (--registry PLACE (--root root.json | --key PREFIX.pub) | FILE.vsix)",
		Example: `  # every byte, offline, against the publisher's key obtained out of band
  airvsx verify --registry /media/usb/registry --key airvsx.pub
  # as a CI gate, with a JUnit report
  airvsx verify --registry ./registry --root root.json --format junit -o verify.xml
  # one untrusted .vsix, with its upstream signature
  airvsx verify ext.vsix --sigzip ext.sigzip --openvsx-key openvsx.pem`,
		Short: "Verify a registry, or one .vsix, offline",
		Long: `Verify checks a registry offline and read-only, and reports every problem
with the file, the entry, the rule and what to do about it:

  - trust: the TUF chain from the pinned root (--root) or from the registry's
    first root signed by --key (trusted on first use, then pinned in the state
    directory), its expiry, and no version lower than recorded (rollback);
  - the catalog: its hash chain to the catalog verified before;
  - every entry: its manifest, every blob's size and sha256 (streamed, in
    parallel), the vsix's safe-zip and manifest rules and identity, and Open
    VSX's Ed25519 signature with the key pinned in the catalog;
  - with --policy: every entry allowed, nothing excluded; always: every
    dependency and extension-pack member present;
  - extras: repositories, tags, blobs and files no entry references are
    warnings (hints), never errors.

--no-read-data checks structure and signatures only: manifests are read,
blobs are checked by size, vsix files are not opened.

The state directory (default $XDG_STATE_HOME/airvsx or ~/.local/state/airvsx;
--state for CI) keeps, per registry, the versions verified before, so an
older copy is caught; it is updated whenever the trust chain verifies. It
also remembers which upstream signatures verified, by the vsix's sha256 (as
hashed in this run), the signature and the key, so a repeat run hashes every
vsix but skips the Ed25519 check of those; --no-cache checks every signature
and neither reads nor writes that cache.

With FILE.vsix instead of --registry, verify is the single-package gate: the
safe-zip and manifest rules, the policy (--policy), and with --sigzip and
--openvsx-key, upstream's signature.

Formats: text (default), json, sarif (SARIF 2.1.0), junit (JUnit XML);
--output writes the report to a file and prints the summary line.

Exit status: 0 no problem, 1 problems found, 2 could not verify (bad flags,
an unreadable trust anchor, not a registry).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			verifyHeap()
			return runVerify(cmd, g, opts, args)
		},
	}
	f := cmd.Flags()
	opts.registry.add(cmd)
	opts.anchor.add(cmd, true)
	f.StringVar(&opts.policy, "policy", "", "a policy every entry (or the package) must satisfy")
	f.StringVar(&opts.format, "format", "text", "report format: text, json, sarif or junit")
	f.BoolVar(&opts.json, "json", false, "same as --format json")
	f.StringVarP(&opts.output, "output", "o", "", "write the report to this file and print only the summary line")
	f.BoolVar(&opts.noReadData, "no-read-data", false, "check structure and signatures only; do not hash blobs or open vsix files")
	f.StringVar(&opts.saveState, "save-state", "", "after verifying, write what the state directory records of the registry (serial, digest, TUF versions) to this file, for airvsx bundle --since on the connected side")
	f.BoolVar(&opts.noCache, "no-cache", false, "check every upstream signature; do not read or write the state directory's signature cache")
	f.StringVar(&opts.sigzip, "sigzip", "", "with FILE.vsix: upstream's .sigzip for it")
	f.StringVar(&opts.openvsxKey, "openvsx-key", "", "with --sigzip: the Open VSX public key (PEM) it was signed with")
	return cmd
}

func runVerify(cmd *cobra.Command, g *globals, opts verifyOptions, args []string) error {
	format := opts.format
	if opts.json {
		if cmd.Flags().Changed("format") && format != "json" {
			return usagef("verify: --json and --format %s disagree", format)
		}
		format = "json"
	}
	f, err := verify.ParseFormat(format)
	if err != nil {
		return usagef("verify: %v", err)
	}
	var pol *policies.Policy
	if opts.policy != "" {
		if pol, err = policies.Load(opts.policy); err != nil {
			return fmt.Errorf("verify: %w", err)
		}
	}
	var rep *verify.Report
	if len(args) == 1 {
		if rep, err = verifyPackage(cmd, opts, args[0], pol); err != nil {
			return err
		}
	} else if rep, err = verifyRegistry(cmd, g, opts, pol); err != nil {
		return err
	}
	if err := writeVerifyReport(g.stdout, opts.output, rep, f); err != nil {
		return err
	}
	if !rep.OK() {
		if _, k, err := place.Parse(opts.registry.place); len(args) == 0 && err == nil && k.Repairable && copyRepairs(rep) {
			fmt.Fprintf(g.stderr, "airvsx: to repair this copy from a good one (the publisher's, or the connected side's; GOOD is its place):\n  %s\n",
				repairHint("GOOD", opts.registry.place, &opts.anchor))
		}
		return errFailed
	}
	return nil
}

// copyRepairs reports whether the report's errors include some that a
// copy --repair from a good copy fixes.
func copyRepairs(rep *verify.Report) bool {
	for _, p := range rep.Problems {
		if p.Severity == verify.Error && verify.CopyRepairs(p.Rule) {
			return true
		}
	}
	return false
}

func verifyRegistry(cmd *cobra.Command, g *globals, opts verifyOptions, pol *policies.Policy) (*verify.Report, error) {
	if opts.sigzip != "" || opts.openvsxKey != "" {
		return nil, usagef("verify: --sigzip and --openvsx-key go with FILE.vsix, not --registry")
	}
	if opts.registry.place == "" {
		return nil, usagef("verify: --registry DIR or FILE.vsix is required")
	}
	anchor, state, err := opts.anchor.resolve("verify")
	if err != nil {
		return nil, err
	}
	st, err := opts.registry.open(cmd.Context())
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	defer st.Close()
	if opts.saveState != "" && state == nil {
		return nil, usagef("verify: --save-state writes what the state directory records: it does not go with --no-state")
	}
	o := verify.RegistryOptions{Store: st, Target: opts.registry.place, Anchor: anchor, State: state,
		Policy: pol, NoReadData: opts.noReadData, NoCache: opts.noCache, Logger: g.logger()}
	rep, err := verify.Registry(cmd.Context(), o)
	if err != nil || opts.saveState == "" {
		return rep, err
	}
	return rep, saveState(cmd.Context(), st, opts.registry.place, anchor, state, opts.saveState)
}

// saveState writes the state the state directory records for the
// registry in st (what this verify recorded) to file: what bundle
// --since reads on the connected side.
func saveState(ctx context.Context, st store.Store, where string, anchor trust.Anchor, state *trust.StateDir, file string) error {
	root := anchor.Root
	if root == nil {
		var err error
		if root, err = st.ReadMetadata(ctx, "1.root.json", trust.MaxRootBytes); err != nil {
			return fmt.Errorf("verify: --save-state: %w", err)
		}
	}
	rs, _, err := state.Load(index.SHA256Hex(root))
	if err != nil {
		return fmt.Errorf("verify: --save-state: %w", err)
	}
	if rs.Registry == "" || rs.Serial == 0 {
		return fmt.Errorf("verify: --save-state: nothing recorded for %s: its trust chain did not verify", where)
	}
	b, err := json.MarshalIndent(rs, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(file, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("verify: --save-state: %w", err)
	}
	return nil
}

func verifyPackage(cmd *cobra.Command, opts verifyOptions, path string, pol *policies.Policy) (*verify.Report, error) {
	if opts.registry.place != "" || opts.anchor.anyGiven() || opts.noReadData || opts.noCache {
		return nil, usagef("verify: FILE.vsix takes --policy, --sigzip, --openvsx-key and the report flags only")
	}
	if (opts.sigzip == "") != (opts.openvsxKey == "") {
		return nil, usagef("verify: --sigzip and --openvsx-key go together")
	}
	o := verify.PackageOptions{Policy: pol}
	if opts.sigzip != "" {
		sz, err := verifyReadFile(opts.sigzip, vsix.MaxSigzipBytes)
		if err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
		kb, err := verifyReadFile(opts.openvsxKey, 64<<10)
		if err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
		pub, err := vsix.ParseUpstreamKey(kb)
		if err != nil {
			return nil, fmt.Errorf("verify: %s: %w", opts.openvsxKey, err)
		}
		o.Sigzip, o.UpstreamKey = sz, pub
	}
	return verify.Package(cmd.Context(), path, o)
}

// writeVerifyReport writes the report to stdout, or to the output file
// (written to a temp file and renamed) with the summary line on stdout.
func writeVerifyReport(stdout io.Writer, output string, rep *verify.Report, f verify.Format) error {
	version := readBuildInfo().Version
	if output == "" {
		return rep.Write(stdout, f, version)
	}
	if err := atomicfile.Write(output, 0o644, func(w io.Writer) error { return rep.Write(w, f, version) }); err != nil {
		return fmt.Errorf("verify: report: %w", err)
	}
	_, err := fmt.Fprintf(stdout, "%s\nreport (%s): %s\n", rep.SummaryLine(), f, output)
	return err
}

// verifyReadFile reads a small regular file, refusing more than max bytes
// (and a FIFO or device, unread).
func verifyReadFile(path string, max int64) ([]byte, error) {
	b, err := safefile.ReadFile(path, max)
	if err != nil {
		return nil, err
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return nil, fmt.Errorf("%s: empty", path)
	}
	return b, nil
}

// verifyHeap sets the collector for verify, unless GOGC or GOMEMLIMIT is
// set: what verify holds grows with the registry (one report line an
// entry, the IDs present: about 100 MB at 200,000 entries) while what it
// allocates is mostly garbage at once (each manifest, listing and
// shard). So the heap may grow to three times what is held (GOGC=200),
// which keeps collections rare for most registries, but not beyond
// verifyHeapLimit, the soft limit that bounds the peak of a large one
// (the collector then runs more often).
func verifyHeap() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(200)
		debug.SetMemoryLimit(verifyHeapLimit)
	}
}

// verifyHeapLimit is verify's soft memory limit (verifyHeap).
const verifyHeapLimit = 150 << 20
