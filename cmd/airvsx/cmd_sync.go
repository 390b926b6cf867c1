package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/place"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/internal/termtext"
	"github.com/airvsx/airvsx/mirror"
	"github.com/airvsx/airvsx/mirror/openvsx"
	"github.com/airvsx/airvsx/policies"
)

type syncOptions struct {
	upstream    string
	controlURL  string
	policy      string
	registry    string
	net         registryNet // --insecure, --allow-insecure-remote, --ca-file (docker:// places)
	key         string
	dryRun      bool
	prune       bool
	renew       bool
	json        bool
	report      string
	concurrency int
	rate        float64
	caFile      string
	// progressEvery is how often a sync without a terminal prints a
	// progress line on stderr; 0: never.
	progressEvery time.Duration
}

func newSyncCommand(g *globals) *cobra.Command {
	var opts syncOptions
	cmd := &cobra.Command{
		Use: "sync --upstream URL --policy FILE --registry PLACE --key PREFIX.key",
		Example: `  airvsx keygen --out airvsx
  COSIGN_PASSWORD=... airvsx sync --upstream https://open-vsx.org --policy policy.yaml --registry ./registry --key airvsx.key
  # what would be fetched, without writing anything
  airvsx sync --upstream https://open-vsx.org --policy policy.yaml --registry ./registry --dry-run
  # one signed commit per sync in a git repository
  airvsx sync --upstream https://open-vsx.org --policy policy.yaml --registry git:/srv/vsx.git --key airvsx.key`,
		Short: "Mirror what a policy allows from Open VSX into a signed registry",
		Long: `Sync plans from the policy, fetches every new version from the upstream it
is given (and from nowhere else), verifies each download (size, sha256,
Open VSX's Ed25519 signature, the safe-zip rules, and that the package is
what was asked for), stores it, and signs a new catalog with the key
(password in COSIGN_PASSWORD).

The upstream is never implicit: --upstream or the policy's upstream: must
name it. --dry-run prints the plan (new, unchanged, leaving, bytes to
fetch) and writes nothing. Rejected downloads are quarantined with the
reason, the run goes on, and the exit status is 1.

The plan is printed on stdout as soon as it is made, before any download;
the results follow when the sync is done. On a terminal a progress line
on stderr shows how the downloads go; without one, a line is printed on
stderr every --progress-every (5s), naming what a stalled sync waits on.

With nothing new upstream, sync leaves the registry as it is (no new
serial) and says "nothing new: registry unchanged"; it signs the same
catalog again, as a new serial, only when the registry's metadata expires
within half of the policy's catalog.expires, or with --renew.

The extension control list (the kill list: extensions found malicious or
deprecated) is carried only when asked: --control-url (or the policy's
control.url) names where to fetch it, e.g. Open VSX's
https://raw.githubusercontent.com/open-vsx/publish-extensions/master/extension-control/extensions.json;
the policy's control.files add an admin's own lists. Each is checked
strictly (a malformed list stops the sync before anything is written) and
signed into the registry's metadata with its origin, source, fetch time
and digest; a changed list signs a new catalog even with nothing new.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSync(cmd, g, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.upstream, "upstream", "", "the Open VSX to mirror from (overrides the policy's upstream:)")
	f.StringVar(&opts.controlURL, "control-url", "", "fetch the extension control list (kill list) from this URL and carry it signed (overrides the policy's control.url; none when neither is given)")
	f.StringVar(&opts.policy, "policy", "", "the policy file (required)")
	f.StringVar(&opts.registry, "registry", "", "the registry, created if missing (required): a directory (DIR), a git repository (git:PATH[#BRANCH]: one signed commit per sync; a new one is bare when PATH ends in .git) or an OCI registry (docker://HOST[:PORT]/PREFIX, whose entries are also cosign-signed with the key)")
	opts.net.add(cmd, false)
	f.StringVar(&opts.key, "key", "", "the signing key, PREFIX.key from airvsx keygen or a cosign.key (required unless --dry-run)")
	f.BoolVar(&opts.dryRun, "dry-run", false, "print the plan and write nothing")
	f.BoolVar(&opts.prune, "prune", false, "drop from the catalog what the policy no longer wants (its blobs stay: airvsx gc frees them, or use airvsx prune)")
	f.BoolVar(&opts.renew, "renew", false, "sign a new catalog serial even when nothing is new, to renew the metadata's expiry early")
	f.BoolVar(&opts.json, "json", false, "print the run's report (plan, results, egress log) as JSON")
	f.StringVar(&opts.report, "report", "", "also write the JSON report to this file")
	f.IntVar(&opts.concurrency, "concurrency", 4, "parallel downloads")
	f.Float64Var(&opts.rate, "rate", 2, "requests per second to the upstream's API host; its storage is not paced (Open VSX's free tier allows under 3)")
	f.StringVar(&opts.caFile, "ca-file", "", "extra PEM CA bundle to trust for the upstream and a docker:// registry")
	f.DurationVar(&opts.progressEvery, "progress-every", defaultSyncPlainEvery, "when stderr is no terminal, print a progress line there this often, naming what has received nothing for as long (0: never; not with --json)")
	return cmd
}

// check refuses flags that go wrong together, or are missing.
func (opts syncOptions) check() error {
	if opts.policy == "" || opts.registry == "" {
		return usagef("sync: --policy and --registry are required")
	}
	if opts.key == "" && !opts.dryRun {
		return usagef("sync: --key is required (or --dry-run)")
	}
	if opts.concurrency < 1 || opts.rate <= 0 {
		return usagef("sync: --concurrency must be at least 1 and --rate positive")
	}
	if opts.progressEvery < 0 {
		return usagef("sync: --progress-every must not be negative (0: no progress lines)")
	}
	return nil
}

func runSync(cmd *cobra.Command, g *globals, opts syncOptions) error {
	if err := opts.check(); err != nil {
		return err
	}
	pol, err := policies.Load(opts.policy)
	if err != nil {
		return &usageError{fmt.Errorf("--policy: %w", err)}
	}
	upstream := opts.upstream
	if upstream == "" {
		upstream = pol.Upstream
	}
	if upstream == "" {
		return usagef("sync: no upstream: pass --upstream URL or set upstream: in %s (airvsx never picks one itself)", opts.policy)
	}
	// On a terminal, a progress line on stderr that log records keep clear
	// of.
	prog := syncProgress(g, opts.json)
	logger := g.loggerBeside(prog)
	controlURL := cmp.Or(opts.controlURL, pol.Control.URL)
	client, err := openvsx.NewClient(openvsx.ClientOptions{
		BaseURL: upstream, UserAgent: userAgent(), Rate: opts.rate, CAFile: opts.caFile, Logger: logger,
		ControlURL: controlURL,
	})
	if err != nil {
		return &usageError{err}
	}
	controlFiles, err := readControlFiles(opts.policy, pol)
	if err != nil {
		return err
	}
	so := mirror.Options{
		Client: client, Policy: pol, DryRun: opts.dryRun, Prune: opts.prune, Renew: opts.renew,
		Concurrency: opts.concurrency, Logger: logger, ControlFiles: controlFiles,
	}
	ctx := cmd.Context()
	var key *mirror.Key
	if !opts.dryRun {
		// The key is decrypted while the sync plans; a wrong password
		// stops it before any download (mirror.StartKey).
		if ctx, key, err = mirror.StartKey(ctx, opts.key, []byte(os.Getenv("COSIGN_PASSWORD"))); err != nil {
			return fmt.Errorf("--key: %w", err)
		}
		defer key.Stop()
		so.Signer, opts.net.signer = key.Signer(), key.Signer()
	}
	opts.net.caFile, opts.net.logger = opts.caFile, logger
	regPath := opts.registry
	if opts.dryRun {
		// Plan against an empty registry when there is none yet, writing
		// nothing at the target.
		var remove func()
		if regPath, remove, err = place.DryRun(opts.registry); err != nil {
			return err
		}
		defer remove()
	}
	st, err := openRegistryNet(ctx, regPath, !opts.dryRun, opts.net)
	if err != nil {
		return err
	}
	defer st.Close()
	so.Store = st
	showSync(g, prog, opts, client.BaseURL(), &so)

	rep, err := mirror.Sync(ctx, so)
	prog.Finish()
	err = key.Err(err) // an unusable key stopped the sync, or its signing
	if !opts.dryRun {
		err = abandon(ctx, st, opts.registry, "sync", err)
	}
	if rep != nil && opts.report != "" {
		if werr := writeJSONFile(opts.report, rep); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		return syncFailed(err, opts)
	}
	if opts.json {
		if err := g.printJSON(rep); err != nil {
			return err
		}
	} else {
		printSyncResult(g.stdout, rep)
	}
	if rep.Failed() {
		return errFailed
	}
	return nil
}

// showSync sets how a sync shows how it goes: on a terminal a progress
// line (prog), else a plain line on stderr every --progress-every; and,
// without --json, the plan printed on stdout as soon as it is made.
func showSync(g *globals, prog *progressLine, opts syncOptions, upstream string, so *mirror.Options) {
	stallAfter := opts.progressEvery
	if stallAfter <= 0 {
		stallAfter = defaultSyncPlainEvery
	}
	switch {
	case prog.On():
		so.Progress, so.ProgressEvery = showSyncProgress(prog, stallAfter), syncTerminalBeat
	case !opts.json && opts.progressEvery > 0:
		// No terminal: a plain line every --progress-every.
		so.Progress, so.ProgressEvery = plainSyncProgress(g.stderr, opts.progressEvery), opts.progressEvery
	}
	if !opts.json {
		// The plan is the first part of the result, on stdout before any
		// download starts; the rest follows when the sync is done.
		so.OnPlan = func(plan *mirror.Plan) {
			prog.Done()
			printSyncPlan(g.stdout, upstream, plan, opts.prune, opts.rate)
		}
	}
}

// syncFailed is sync's error for err: naming the key file and the place
// when the key is not the registry's, the place when a git history's
// signature fails, and what to do next.
func syncFailed(err error, opts syncOptions) error {
	if ke := (*trust.KeyError)(nil); errors.As(err, &ke) {
		// Checked before any download: name the key file and the place.
		ke.Registry = opts.registry
		err = fmt.Errorf("--key %s: %w", opts.key, err)
	}
	if errors.Is(err, trust.ErrHistorySignature) {
		err = fmt.Errorf("%s: %w", opts.registry, err) // the place whose branch it is
	}
	return fmt.Errorf("sync: %w%s", err, syncHint(err))
}

// syncHint is what to do next about a failed sync's error, on lines of
// its own after the error, or "".
func syncHint(err error) string {
	var ce *openvsx.ConnError
	switch {
	case errors.Is(err, openvsx.ErrUnreachable):
		return "\nhint: check that --upstream (or the policy's upstream:) names a running Open VSX; " +
			"if this network reaches it through a proxy, set HTTPS_PROXY"
	case errors.Is(err, openvsx.ErrTLS):
		return "\nhint: the upstream's TLS does not verify: check the scheme of --upstream (http or https); " +
			"if a proxy inspects TLS here, pass its CA bundle with --ca-file"
	case errors.As(err, &ce):
		return "\nhint: the upstream kept failing; the next sync resumes where this one stopped"
	case errors.Is(err, openvsx.ErrRefused):
		return "\nhint: airvsx sends requests only to the upstream and follows no redirect it deems unsafe; " +
			"check --upstream"
	}
	return ""
}

// printSyncPlan prints the first part of a sync's summary, its plan, as
// soon as it is made: complete on its own, as the log (stderr) may show
// nothing below warnings. With new items it says what fetching them asks
// of the upstream, and how long its API requests take at rate (--rate)
// requests a second. printSyncResult prints the rest.
func printSyncPlan(w io.Writer, upstream string, p *mirror.Plan, prune bool, rate float64) {
	esc := termtext.Escape // names, versions and reasons can carry upstream's text
	fmt.Fprintf(w, "upstream: %s\n", upstream)
	fmt.Fprintf(w, "plan: %d new, %d unchanged, %d leaving, %d skipped, %d missing; %s to fetch\n",
		len(p.New), len(p.Unchanged), len(p.Leaving), len(p.Skipped), len(p.Missing), index.FormatBytes(p.FetchBytes))
	if len(p.New) > 0 {
		r := p.FetchRequests
		fmt.Fprintf(w, "fetch: about %s to the API host and %d to storage; about %s at %g requests/s\n",
			count(r.API, "request", "requests"), r.Storage, estimate(r.Duration(rate)), rate)
	}
	for _, it := range p.New {
		fmt.Fprintf(w, "  new        %s (%s)\n", esc(it.String()), esc(it.Reason))
	}
	for _, e := range p.Unchanged {
		fmt.Fprintf(w, "  unchanged  %s\n", e.String())
	}
	leaving := "(kept until --prune)"
	if prune {
		leaving = "(dropped: --prune)"
	}
	for _, e := range p.Leaving {
		fmt.Fprintf(w, "  leaving    %s %s\n", e.String(), leaving)
	}
	for _, e := range p.Local {
		fmt.Fprintf(w, "  local      %s (added locally; kept)\n", e.String())
	}
	for _, s := range p.Skipped {
		name := s.ID.String()
		if s.Version != "" {
			name = (&mirror.Item{ID: s.ID, Version: s.Version, Platform: s.Platform}).String()
		}
		fmt.Fprintf(w, "  skipped    %s: %s\n", esc(name), esc(s.Reason))
	}
	for _, m := range p.Missing {
		sev := "warning"
		if m.Fatal {
			sev = "error"
		}
		fmt.Fprintf(w, "  missing    %s, required by %s: %s (%s)\n", m.ID, esc(m.RequiredBy), esc(m.Reason), sev)
	}
}

// estimate spells a duration estimate: "under 1s", "42s", "1h2m3s",
// "4d14h".
func estimate(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d < time.Second:
		return "under 1s"
	case d >= 2*day:
		d = d.Round(time.Hour)
		return fmt.Sprintf("%dd%dh", d/day, d%day/time.Hour)
	}
	return d.Round(time.Second).String()
}

// printSyncResult prints what a sync did, below its plan (printSyncPlan).
func printSyncResult(w io.Writer, rep *mirror.Report) {
	esc := termtext.Escape
	if rep.DryRun {
		fmt.Fprintln(w, "dry run: nothing written")
		return
	}
	fmt.Fprintf(w, "stored: %d\n", len(rep.Stored))
	if len(rep.Quarantined) > 0 {
		fmt.Fprintf(w, "quarantined: %d\n", len(rep.Quarantined))
		for _, q := range rep.Quarantined {
			fmt.Fprintf(w, "  %s: %s\n    in %s\n", esc(q.Item), esc(q.Reason), esc(q.Path))
		}
	}
	switch c := rep.Catalog; {
	case c == nil:
	case c.Unchanged:
		fmt.Fprintf(w, "nothing new: registry unchanged (serial %d, %s, %s, expires %s)\n", c.Serial, count(c.Entries, "entry", "entries"), c.Digest, c.Expires.Format("2006-01-02T15:04:05Z"))
	default:
		if c.Renewed {
			fmt.Fprintf(w, "nothing new, signed again: %s\n", c.RenewReason)
		}
		fmt.Fprintf(w, "catalog: serial %d, %s, %s, expires %s\n", c.Serial, count(c.Entries, "entry", "entries"), c.Digest, c.Expires.Format("2006-01-02T15:04:05Z"))
	}
	retries := 0
	for _, r := range rep.Egress {
		if r.Attempt > 1 {
			retries++
		}
	}
	for _, c := range rep.Control {
		switch {
		case c.Kept:
			fmt.Fprintf(w, "control list %s: kept as carried (fetched %s; no control URL given)\n", c.Origin, c.FetchedAt.Format(time.RFC3339))
		default:
			state := "unchanged"
			if c.Changed {
				state = "changed"
			}
			fmt.Fprintf(w, "control list %s: %s, %d malicious, %d deprecated (%s, %s)\n", c.Origin, state, c.Malicious, c.Deprecate, esc(c.Source), c.Digest)
		}
	}
	fmt.Fprintf(w, "requests: %d (%d retries)\n", len(rep.Egress), retries)
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
