package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/hostlaunch/install"
	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/internal/termtext"
	"github.com/airvsx/airvsx/policies"
)

type installOptions struct {
	registry     registryFlags // --registry and the network flags of a docker:// place
	anchor       anchorFlags
	extensions   string
	policy       string
	allowPartial bool
	preRelease   bool
	json         bool
}

func newInstallCommand(g *globals) *cobra.Command {
	var opts installOptions
	cmd := &cobra.Command{
		Use: "install (ID[@VERSION] --registry PLACE (--root root.json | --key PREFIX.pub) | FILE.vsix) --extensions DIR",
		Example: `  airvsx install redhat.vscode-yaml --registry /media/usb/registry --key airvsx.pub --extensions ~/.airvsx/extensions
  airvsx install redhat.vscode-yaml@1.15.0 --registry git:/media/usb/registry.git --root root.json --extensions ./exts
  # a .vsix received by hand (no upstream signature: check it first with airvsx verify FILE.vsix --sigzip ...)
  airvsx install ./my-extension-0.1.0.vsix --extensions ./exts`,
		Short: "Install an extension, with its dependencies, into an extensions directory",
		Long: `Install verifies and unpacks an extension into the extensions directory DIR,
offline, and records it in DIR/installed.json. Every record there is sealed
with a key of the user's (install-seal.key in $XDG_STATE_HOME/airvsx or
~/.local/state/airvsx, whatever --state says; made by the first install), so
that run and list trust only the records airvsx wrote.

With --registry, ID[@VERSION] is taken from the registry's signed catalog,
checked as verify checks it (the trust chain from --root or --key, rollback
against the state directory, which install updates like verify), and the
entry's manifest and vsix by size and sha256. The build for this machine's
platform is preferred to the universal one; without a version the newest
release whose engines.vscode accepts the host's API version is taken
(--pre-release allows pre-releases). extensionDependencies and extension-pack
members are installed first, unless already installed.

Without --registry, FILE.vsix is a package received by hand: the same checks
of the archive and the manifest, recorded as a local file with no upstream
signature; its dependencies must be installed already.

Every package must pass the safe-zip and manifest rules, engines.vscode must
accept the host's API version (` + install.APIVersion + `), and every activation event must be
one the host honours (onCommand, onLanguage, workspaceContains,
onStartupFinished, *), unless --allow-partial-activation. The capabilities an
extension gets are those it declares that --policy grants (none without a
policy). Below each extension install prints what it declares and is
granted, by which rule, and what it declares and is not, with the
capabilities item to add to the policy to grant it. Installing again what is
installed, same version, with --policy re-applies that policy's grants
("grants updated: ..."), without unpacking; with the same grants it says
"kept"; without --policy the recorded grants stay. A package that fails is kept in DIR/.quarantine with a REASON file,
and nothing is installed.

Exit status: 0 installed, 1 refused (a check failed), 2 usage or I/O error.`,
		Args: namedArgs("install", "ID or FILE.vsix"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runInstall(cmd, g, opts, args[0])
		},
	}
	f := cmd.Flags()
	opts.registry.add(cmd)
	opts.anchor.add(cmd, true)
	f.StringVar(&opts.extensions, "extensions", "", "the extensions directory (created if missing)")
	f.StringVar(&opts.policy, "policy", "", "the policy whose capabilities rules grant capabilities (default: none granted)")
	f.BoolVar(&opts.allowPartial, "allow-partial-activation", false, "install even if some activation events cannot be honoured (they never fire)")
	f.BoolVar(&opts.preRelease, "pre-release", false, "without a version, allow pre-releases")
	f.BoolVar(&opts.json, "json", false, "print what was installed as JSON")
	return cmd
}

func runInstall(cmd *cobra.Command, g *globals, opts installOptions, arg string) error {
	if opts.extensions == "" {
		return usagef("install: --extensions DIR is required")
	}
	if opts.registry.place != "" {
		if err := outsideRegistry("install", "--extensions", opts.extensions, opts.registry.place); err != nil {
			return err
		}
	}
	o := install.Options{Dir: opts.extensions, AllowPartialActivation: opts.allowPartial, PreRelease: opts.preRelease, Logger: g.logger()}
	if opts.policy != "" {
		pol, err := policies.Load(opts.policy)
		if err != nil {
			return fmt.Errorf("install: %w", err)
		}
		o.Policy = pol
	}
	var res *install.Result
	var err error
	if opts.registry.place == "" {
		if opts.anchor.anyGiven() || opts.preRelease {
			return usagef("install: FILE.vsix takes --extensions, --policy, --allow-partial-activation and --json; --root, --key, --state and --pre-release go with --registry")
		}
		// An extension ID (publisher.name[@version]) with no such file:
		// the user meant a registry.
		if _, serr := os.Stat(arg); errors.Is(serr, fs.ErrNotExist) && !strings.HasSuffix(strings.ToLower(arg), ".vsix") {
			if _, _, perr := install.ParseRef(arg); perr == nil {
				return usagef("install: %s is an extension ID, not a file: give the registry to install it from, --registry PLACE (with --key PREFIX.pub or --root), or a .vsix file's path", arg)
			}
		}
		res, err = install.FromFile(cmd.Context(), arg, o)
	} else {
		if _, _, perr := install.ParseRef(arg); perr != nil {
			return &usageError{perr}
		}
		anchor, state, rerr := opts.anchor.resolve("install")
		if rerr != nil {
			return rerr
		}
		st, oerr := opts.registry.open(cmd.Context())
		if oerr != nil {
			return fmt.Errorf("install: %w", oerr)
		}
		defer st.Close()
		reg := install.Registry{Store: st, Place: opts.registry.place, Anchor: anchor, State: state}
		res, err = install.FromRegistry(cmd.Context(), reg, arg, o)
		if r := (*install.RefusedError)(nil); errors.As(err, &r) && r.Damaged {
			// The registry's copy is damaged: the exact command that
			// shows every problem, and what repairs it.
			args := append([]string{"airvsx", "verify", "--registry", opts.registry.place}, opts.anchor.args()...)
			return fmt.Errorf("%w\n  the registry is damaged; this lists every problem: %s\n  then repair it from a good copy: %s",
				err, commandLine(args...), repairHint("GOOD", opts.registry.place, &opts.anchor))
		}
	}
	if err != nil {
		return err
	}
	if opts.json {
		return g.printJSON(res)
	}
	for _, r := range res.Installed {
		fmt.Fprintf(g.stdout, "installed %s in %s\n", r.String(), filepath.Join(opts.extensions, r.Dir))
		writeGrants(g.stdout, &r, opts.policy)
	}
	for _, r := range res.Updated {
		fmt.Fprintf(g.stdout, "grants updated: %s (already installed) now gets %s\n", r.String(), grantsText(&r))
		writeGrants(g.stdout, &r, opts.policy)
	}
	for _, r := range res.Kept {
		fmt.Fprintf(g.stdout, "kept %s (already installed)\n", r.String())
		writeGrants(g.stdout, &r, opts.policy)
	}
	for _, o := range res.ControlOverrides {
		fmt.Fprintf(g.stdout, "control list overridden: %s is %s; installed because the policy allows it: %s\n", o.ID, termtext.Escape(o.Verdict), termtext.Escape(o.Reason))
	}
	return nil
}

// writeGrants prints, below an install's line for r, what r declares and
// is granted, each with its rule, and what it declares and is not, with
// the policy line that would grant it. Nothing for an extension that
// declares nothing and is granted nothing.
func writeGrants(w io.Writer, r *install.Record, policy string) {
	for _, gr := range r.Capabilities {
		how := "declared"
		if gr.DeclaredByPolicy {
			how = "declared by the policy"
		}
		fmt.Fprintf(w, "  %s: %s, granted by %s%s\n", gr.Capability, how, gr.Rule, brokerList(r, gr.Capability))
	}
	missing := r.NotGranted()
	if len(missing) == 0 {
		return
	}
	by := "no --policy given"
	if policy != "" {
		by = "no rule of " + policy + " grants it"
	}
	fmt.Fprintf(w, "  %s: declared, NOT granted (%s); using it fails at run. To grant it, add under the policy's capabilities:\n", joinCaps(missing), by)
	fmt.Fprintf(w, "    %s\n", policies.RuleLine(r.ID, missing, nil, nil, nil))
	fmt.Fprintf(w, "  and install again with --policy POLICY.yaml\n")
}

// grantsText is r's effective capabilities, with the brokers' lists:
// "spawn [/usr/bin/git]", or "no capabilities".
func grantsText(r *install.Record) string {
	var parts []string
	for _, gr := range r.Capabilities {
		parts = append(parts, string(gr.Capability)+brokerList(r, gr.Capability))
	}
	if len(parts) == 0 {
		return "no capabilities"
	}
	return strings.Join(parts, ", ")
}

// brokerList is " [programs]" for spawn and " [hosts]" for network, as
// the policy lists them for r; "" for other capabilities.
func brokerList(r *install.Record, c index.Capability) string {
	switch c {
	case index.Spawn:
		return " [" + strings.Join(r.Programs, " ") + "]"
	case index.Network:
		return " [" + strings.Join(r.AllowedHosts, " ") + "]"
	}
	return ""
}

// joinCaps is "spawn" or "network, spawn".
func joinCaps(cs index.CapabilitySet) string {
	var s []string
	for _, c := range cs {
		s = append(s, string(c))
	}
	return strings.Join(s, ", ")
}
