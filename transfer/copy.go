package transfer

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
)

// Errors callers branch on.
var (
	// ErrSource is wrapped when the source does not verify: its trust
	// chain or catalog, a manifest, or a blob that is not what its digest
	// says. The destination's catalog is then unchanged.
	ErrSource = errors.New("the source does not verify")
	// ErrRefused is wrapped when the destination holds a registry the
	// copy would overwrite unsafely: another operator's (another root), a
	// newer catalog (a rollback), another catalog of the same serial (a
	// fork), or metadata that does not verify. Options.Force overrides it.
	ErrRefused = errors.New("refused to overwrite the destination")
	// ErrNoSpace is wrapped when the destination's file system has less
	// free space than the copy needs, found before anything is written.
	ErrNoSpace = errors.New("not enough free space at the destination")
)

// DefaultWorkers is the least number of blobs Copy copies at once by
// default: with fewer, a 2-CPU machine leaves a CPU idle while a blob
// waits on the disk (scripts/bench-copy.sh: 4 workers copy 2 GB between
// directories about 15% faster than 2).
const DefaultWorkers = 4

// Options configure Copy. Anchor is required; every other zero value works.
type Options struct {
	// Anchor is what the operator trusts: the source is checked from it
	// as verify checks a registry (index/trust.Check). Required.
	Anchor trust.Anchor
	// State keeps what earlier runs verified; the source is checked
	// against it (rollback) and, once the destination holds the copy
	// (committed), recorded in it as verify records it: a copy that
	// stops earlier records nothing. Default nil: no state is read or
	// written.
	State *trust.StateDir
	// Force overwrites a destination that holds another root's registry,
	// a newer catalog or metadata that does not verify. Each override is
	// logged as a warning and listed in Report.Forced. Default false:
	// refuse (ErrRefused).
	Force bool
	// Repair also reads every blob the destination already holds (by
	// digest and size) through its verifying reader, and checks each
	// repository's layout files (a destination that can: store.Dir).
	// A blob whose bytes are not what its digest says is listed in
	// Report.Damaged and replaced from the source; a damaged layout is
	// listed, written anew and its tags written again. The damaged files
	// are kept in the destination's quarantine, never deleted. Only a
	// destination that can replace them (a directory: store.Dir) can be
	// repaired; with any other, damage refuses the copy (ErrRefused)
	// before anything is written. In a dry run the damage is only listed.
	// Default false: a blob of the right size is taken as present, unread.
	Repair bool
	// DryRun checks the source's trust chain, catalog and manifests and
	// plans the copy, and writes nothing (not the state either): the
	// report says what would move. The destination may then be nil, for
	// a place that does not exist yet. Default false.
	DryRun bool
	// Source and Dest name the places in messages and in the report.
	// Default "": "source" and "destination".
	Source, Dest string
	// Now is the clock the source's expiry is checked against. Default
	// nil: time.Now.
	Now func() time.Time
	// Workers is how many blobs are copied at once. Default 0:
	// runtime.GOMAXPROCS(0), and at least DefaultWorkers (a blob's copy
	// waits on the disk or the network as well as on the CPU).
	Workers int
	// Progress, when set, is called as the copy goes (from several
	// goroutines, one call at a time). Default nil.
	Progress func(Progress)
	// FreeSpace gives the free space and block size of the destination's
	// file system when the destination store cannot (a dry run to a
	// directory that does not exist yet: nil). Default nil: asked of the
	// destination store, when it can say (store.Dir).
	FreeSpace func() (free, block int64, err error)
	// Logger receives warnings (forced overwrites) and debug records.
	// Default nil: discard.
	Logger *slog.Logger
	// SignKey is the public half of the key that signs the destination's
	// change (a git destination's commit). The source's newest root,
	// which the destination carries after the copy, must trust it for
	// the targets role, the keys verify checks a commit against; else
	// the copy stops right after the source's trust chain, before
	// anything is written, with an error wrapping a *trust.KeyError.
	// Default nil: nothing is signed, nothing checked.
	SignKey crypto.PublicKey
	// SignKeyName names SignKey in messages ("--sign-key op.key").
	// Default "": "the signing key".
	SignKeyName string
	// ForceName names Force in the warning logged for each refusal it
	// overrides ("--force"). Default "": "Force".
	ForceName string

	// held, set by Apply, is the entries (repository "@" manifest
	// digest) the destination's verified catalog pins: they are not
	// planned, only the bundle's.
	held map[string]bool
	// dest, set by Apply, is the destination's catalog it read, which
	// Copy then does not read again.
	dest *destRead
	// bundle, set by Apply, is the source: the bundle laid over the
	// destination. The destination's shards read while planning are
	// given to it (primeBase) for the deltas made on them, and the
	// metadata it reads from the destination itself (fromUnder) is not
	// planned, nor read to be compared with itself.
	bundle *overlay
}

// Progress is how far a copy has come.
type Progress struct {
	// Step is "plan", "blobs", "tags" or "metadata".
	Step string
	// Entries and PlannedEntries count the manifests read in the plan.
	Entries, PlannedEntries int
	// Blobs and Bytes count what has been copied; PlannedBlobs and
	// PlannedBytes what the plan moves.
	Blobs, PlannedBlobs int
	Bytes, PlannedBytes int64
}

// Report says what a copy moved (or, in a dry run, would move).
type Report struct {
	Source string `json:"source"`
	Dest   string `json:"destination"`
	DryRun bool   `json:"dryRun"`
	// Serial and Digest are the source's catalog's, which the
	// destination holds after the copy.
	Serial int64  `json:"serial"`
	Digest string `json:"digest"`
	// DestSerial and DestDigest are the destination's catalog before the
	// copy (0 and "" when it had none).
	DestSerial int64  `json:"destSerial"`
	DestDigest string `json:"destDigest,omitempty"`
	// Forced lists what Options.Force overrode.
	Forced []string `json:"forced,omitempty"`
	// Entries is how many entries the catalog has.
	Entries int `json:"entries"`
	// Held is how many of them a bundle's destination already held
	// (pinned by its verified catalog): Apply plans only the others, and
	// CatalogBlobs and CatalogBytes count only theirs.
	Held int `json:"held,omitempty"`
	// Dropped is how many entries of a bundle's destination its new
	// catalog no longer lists (a prune on the connected side): their tags
	// and blobs stay until gc removes them.
	Dropped int `json:"dropped,omitempty"`
	// Repositories lists the repositories with blobs to move, sorted.
	Repositories []RepoMove `json:"repositories"`
	// Blobs and Bytes are what moved (or would move); Present and
	// PresentBytes what the destination already held.
	Blobs        int   `json:"blobs"`
	Bytes        int64 `json:"bytes"`
	Present      int   `json:"present"`
	PresentBytes int64 `json:"presentBytes"`
	// CatalogBlobs and CatalogBytes are every blob the catalog's entries
	// hold (manifests, configs, layers), each counted once however many
	// entries share it: Blobs plus Present. verify's summary counts the
	// same blobs, so the two can be compared.
	CatalogBlobs int   `json:"catalogBlobs"`
	CatalogBytes int64 `json:"catalogBytes"`
	// Damaged lists what the destination held damaged (found only with
	// Options.Repair), in the order found: blobs with other bytes than
	// their digests say, each counted in Blobs too since it is copied
	// again, and repositories whose layout files are not well formed,
	// whose tags are then all written again.
	Damaged []Damage `json:"damaged,omitempty"`
	// DestFree is the free space of the destination's file system when
	// the plan was made, and Needs about what the plan takes of it (each
	// file in whole blocks); both 0 when the destination cannot say (an
	// OCI registry, a git repository).
	DestFree int64 `json:"destFree,omitempty"`
	Needs    int64 `json:"needs,omitempty"`
	// Tags is how many tags were written.
	Tags int `json:"tags"`
	// Metadata lists the metadata files written, in the order written.
	Metadata []string `json:"metadata"`
	// Stray is how many files of the source's metadata/ were left out
	// because its signed metadata does not name them (junk, or a file
	// slipped in after signing), and StrayNames the first few of them.
	Stray      int      `json:"stray,omitempty"`
	StrayNames []string `json:"strayNames,omitempty"`
	// Duration is how long the copy took.
	Duration time.Duration `json:"durationNs"`
}

// Damage is a blob the destination held with the wrong bytes, or a
// repository whose layout files were damaged.
type Damage struct {
	Repo string `json:"repo"`
	// Digest and Size are the blob's; both empty for a layout.
	Digest string `json:"digest,omitempty"`
	Size   int64  `json:"size,omitempty"`
	// Problem says what is wrong, naming the file.
	Problem string `json:"problem"`
	// Quarantine is where the damaged files were kept when they were
	// replaced ("quarantine/damaged-blob-<hex>",
	// "quarantine/damaged-layout-<pub>.<name>"); empty in a dry run.
	Quarantine string `json:"quarantine,omitempty"`
}

// RepoMove is what moves into one repository.
type RepoMove struct {
	Repo  string `json:"repo"`
	Blobs int    `json:"blobs"`
	Bytes int64  `json:"bytes"`
}

// Files is how many files the copy moves: blobs, tags and metadata.
func (r *Report) Files() int { return r.Blobs + r.Tags + len(r.Metadata) }

// Copy copies the registry in src to dst: see the package comment for the
// steps and what each checks. The report is returned with the error too,
// as far as the copy came. Errors about the source wrap ErrSource, a
// refusal wraps ErrRefused, and a trust chain error wraps index/trust's
// sentinel as well.
func Copy(ctx context.Context, src, dst store.Store, opts Options) (*Report, error) {
	start := time.Now()
	if src == nil || (dst == nil && !opts.DryRun) {
		return nil, errors.New("copy: no source or destination")
	}
	if (opts.Anchor.Root == nil) == (opts.Anchor.Key == nil) {
		return nil, fmt.Errorf("copy: %w", trust.ErrNoAnchor)
	}
	if opts.Source == "" {
		opts.Source = "source"
	}
	if opts.Dest == "" {
		opts.Dest = "destination"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Workers <= 0 {
		opts.Workers = max(runtime.GOMAXPROCS(0), DefaultWorkers)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	c := &copier{opts: opts, src: newMemo(src), rawSrc: src, dst: dst,
		rep: &Report{Source: opts.Source, Dest: opts.Dest, DryRun: opts.DryRun, Repositories: []RepoMove{}, Metadata: []string{}}}
	err := c.run(ctx)
	c.rep.Duration = time.Since(start)
	if err != nil {
		return c.rep, err
	}
	return c.rep, nil
}

// copier is one run of Copy.
type copier struct {
	opts   Options
	src    *memo       // the source, its metadata read once
	rawSrc store.Store // the source as given (for what only its own type offers)
	dst    store.Store // nil in a dry run to a place that does not exist
	rep    *Report
	plan   *plan

	repairedMu sync.Mutex // rep.Damaged's Quarantine fields, set as blobs are replaced
}

func (c *copier) run(ctx context.Context) error {
	step := time.Now()
	done := func(what string, args ...any) {
		c.opts.Logger.Debug(what, append(args, "took", time.Since(step))...)
		step = time.Now()
	}
	checked, err := c.checkSource(ctx)
	if err != nil {
		return err
	}
	done("checked the source", "serial", c.rep.Serial)
	if err := c.checkSignKey(checked.Checked); err != nil {
		return err
	}
	if err := c.checkDestHistory(ctx, checked); err != nil {
		return err
	}
	if err := c.checkDest(ctx, checked); err != nil {
		return err
	}
	if err := c.makePlan(ctx, checked); err != nil {
		return err
	}
	if err := c.checkSpace(); err != nil {
		return err
	}
	done("planned", "blobs", c.rep.Blobs, "bytes", c.rep.Bytes, "present", c.rep.Present)
	if c.opts.DryRun {
		return nil
	}
	// Before the first blob: the record that keeps gc from deleting what
	// this copy writes until its catalog is in place (and a killed copy's
	// blobs until the next run finishes it).
	if err := store.BeginPending(ctx, c.dst, pendingName, c.plan.repos()); err != nil {
		return fmt.Errorf("copy to %s: %w", c.opts.Dest, err)
	}
	if err := c.copyBlobs(ctx); err != nil {
		return err
	}
	done("copied the blobs", "blobs", c.rep.Blobs, "bytes", c.rep.Bytes)
	if err := c.repairLayouts(ctx); err != nil {
		return err
	}
	if err := c.writeTags(ctx); err != nil {
		return err
	}
	done("wrote the tags", "tags", c.rep.Tags)
	if err := c.writeMetadata(ctx); err != nil {
		return err
	}
	done("wrote the metadata", "files", len(c.rep.Metadata))
	if c.rep.Files() > 0 { // else no change to commit
		msg := fmt.Sprintf("airvsx copy: catalog serial %d (%s) from %s", c.rep.Serial, c.rep.Digest, c.opts.Source)
		if err := store.Commit(ctx, c.dst, msg); err != nil {
			return fmt.Errorf("copy to %s: %w", c.opts.Dest, err)
		}
	}
	if err := store.EndPending(ctx, c.dst, pendingName); err != nil {
		return fmt.Errorf("copy to %s: %w", c.opts.Dest, err)
	}
	// The destination now holds the chain that verified: record it, as
	// verify does. Not before: the state is what an install or verify of
	// the destination compares with, and a copy that stopped earlier
	// (no space, a bad blob, a kill) left the destination as it was.
	if _, err := checked.Record(checked.cat); err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	return nil
}

// pendingName names a copy's record in a destination that keeps them
// (store.PendingWriter).
const pendingName = "copy"

// repos are the repositories the plan writes blobs or manifests into,
// sorted.
func (p *plan) repos() []string {
	var repos []string
	for _, b := range p.blobs {
		repos = append(repos, b.repo)
	}
	for _, m := range p.manifests {
		repos = append(repos, m.repo)
	}
	slices.Sort(repos)
	return slices.Compact(repos)
}

// progress reports p when the caller asked for progress.
func (c *copier) progress(p Progress) {
	if c.opts.Progress != nil {
		c.opts.Progress(p)
	}
}
