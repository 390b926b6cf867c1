// Package verify checks registries and single .vsix files offline: every
// signature, freshness, rollback, every byte, policy and dependency
// closure. It reads only, opens no network connection, fails closed, and
// reports every problem it finds, not just the first: each Problem names
// its severity, a stable Rule, the file (File, relative to the registry),
// the entry (ns.name@version[@platform]), a message and the Fix.
//
// Registry and Package return an error only when the verification could
// not run (bad options, a path that is not a registry, a damaged state
// file, a cancelled context); everything wrong with the registry or the
// package itself, its trust chain included, is a Problem in the Report.
// Errors fail the verification (exit status 1); warnings are hints;
// notes state facts and fail nothing.
//
// verify is the report writer of "airvsx verify" (and of the checks of
// copy and site that run it): a Problem's Fix, and a few report lines,
// name the airvsx command and flags that repair or complete the check
// ("airvsx copy --repair", "--no-read-data"), as REPORT.md documents.
// Those are the only flag names in its text; its errors name none.
//
// # Trust (Registry)
//
// The anchor is a pinned root.json (RegistryOptions.Root, --root) or the
// publisher's key (Key, --key). With a key, the registry's
// metadata/1.root.json must list the key as a root key and be signed by
// it (index.TrustOnFirstUse); after that first use the newest verified
// root, pinned in the state directory, is the anchor. From the anchor the
// TUF chain is verified as index.Load specifies: root rotations
// (N+1.root.json signed by the old and the new root's thresholds),
// timestamp, snapshot and targets (signatures and thresholds, lengths
// and hashes declared by the role above, consistent versions), expiry of
// every role against Now, no role version lower than recorded in the
// state, and the catalog target's length and sha256. Each failure is one
// problem naming the metadata file:
//
//   - trust-signature: a role is not signed by the keys the trusted root
//     names (a catalog signed by another key, a version bumped without
//     re-signing, an unauthorised root rotation, a wrong --key);
//   - trust-expired: a role is past its expiry (a freeze);
//   - trust-rollback: a role's version is lower than recorded;
//   - trust-mismatch: a file's length, hash or version differs from what
//     the role above pins (an edited catalog, a snapshot from another
//     publish: mix-and-match);
//   - trust-missing, trust-malformed: a file the chain needs is absent or
//     is not valid TUF metadata;
//   - registry-incomplete: the registry never published a catalog (no
//     metadata/timestamp.json): the first sync or copy that made it
//     stopped before it signed one. It is the one problem reported then.
//
// When the chain does not verify, nothing the catalog says can be trusted
// and no entry is checked.
//
// A registry kept as a signed history (a store implementing
// store.History: a git store) is also checked as a history, by the commit
// rules every reader applies (index/trust.Check); verify reports a broken
// one and checks the rest:
//
//   - history-signature: the commit read is signed by the anchor's key (in
//     root mode, a targets key of the pinned root): an unsigned commit on
//     top, or one signed by another key, fails;
//   - history-rewound: the commit read descends from the commit the state
//     recorded (a force-pushed, rewound branch fails with both commit IDs
//     named). The commit is recorded (state.json's revision) only when
//     both hold.
//
// # State
//
// RegistryOptions.StateDir keeps, per registry identity (the sha256 of the
// pinned root.json, or in key mode of the registry's 1.root.json),
// registries/<hex>/state.json (the TUF versions, the catalog's serial and
// digest) and in key mode registries/<hex>/root.json (the pinned root).
// The TUF versions are recorded whenever the chain verifies, even when
// entries have problems: TUF clients persist each role as soon as it
// verifies, because a version the signer published is a fact whatever
// this copy's blobs hold; not recording it would let an attacker who
// damages one blob make the verifier forget a newer version and then
// roll it back unnoticed. The catalog's serial and digest are recorded
// only when the catalog's own checks below pass, so a forked history keeps
// being reported until the admin resolves it (by deleting the state).
//
// # Signature cache
//
// With a state directory, <state>/sigcache/upstream-ed25519.v1 remembers
// the upstream Ed25519 signatures found valid, one line per verdict: the
// vsix's sha256, the sha256 of the 64 signature bytes and the Ed25519
// public key itself (not its name in the catalog, which another catalog
// may give to another key). A run still hashes every vsix; it skips only
// the SHA-512 pass and the Ed25519 check of a vsix whose sha256, as
// computed in this run, signature bytes and key are a line of the file.
// Only "valid" is ever recorded, so the cache can save work on content it
// names, never change the verdict on other content. The file is a hint: a
// torn, damaged or unreadable file (it ends with the sha256 of the lines
// before it) is ignored whole and replaced. It holds at most 65,536
// verdicts, this run's first; concurrent runs each replace it atomically
// and the last one wins. It is written only when a run found a verdict it
// did not hold. NoCache (--no-cache) neither reads nor writes it.
// Whoever can write the state directory could add a line for a bad
// signature over a specific vsix; the state directory is trusted as much
// as the root it pins.
//
// # The catalog
//
//   - catalog-invalid: it decodes strictly and validates (format, serial,
//     every entry well formed, entries and upstream keys unique);
//   - catalog-rollback: its serial is not lower than the recorded one;
//   - catalog-fork: the recorded serial names the recorded digest;
//   - catalog-chain: when the serial is the recorded one plus one, its
//     previous field is the recorded digest (the hash chain).
//
// # Every entry
//
// The entries are checked by a pool of RegistryOptions.Workers goroutines
// (default GOMAXPROCS), each streaming one blob at a time through its own
// 1 MiB buffer. A format-2 catalog is read shard by shard (a format-1
// catalog is one shard): each shard's entries are checked, a few
// repositories at a time with their tags and extras, then dropped, and
// only a line per entry for the report and the IDs the dependency and
// policy checks need are kept, so memory grows little with the registry.
// A shard that is missing, changed or invalid fails the catalog: no
// entry is checked.
//
//   - manifest-missing, manifest-mismatch: the manifest blob exists with
//     the size and sha256 the catalog pins (hashed while read);
//   - manifest-invalid: store.ParseManifest accepts it (the OCI 1.1
//     artifact of docs/architecture.md, canonical bytes);
//   - manifest-entry: its annotations (id, version, platform, pre-release,
//     created = published, upstream sha256) match the entry;
//   - blob-missing, blob-size, blob-digest, blob-unreadable: the empty
//     config and every layer blob exist with the descriptor's size and
//     sha256, hashed while streamed;
//   - vsix-entry: the vsix layer's digest and size are the entry's
//     vsixSha256 and vsixSize;
//   - signature-missing: the entry has an upstream-signature layer exactly
//     when it says upstream signed it;
//   - signature-key: the entry's upstream key is an Ed25519 key pinned in
//     the catalog's upstreamKeys;
//   - signature-invalid: upstream's Ed25519 signature (.signature.sig in
//     the sigzip) verifies over the whole vsix; the check is fed by the
//     same streaming pass that hashes the vsix (its SHA-512 on a second
//     goroutine), or its valid verdict comes from the signature cache
//     (below) for the sha256 that pass computed;
//   - vsix-unsafe: the vsix passes every safe-zip rule of index/vsix;
//   - vsix-package: its manifests are present, valid and agree;
//   - vsix-identity: it is the entry's extension, version and platform;
//   - entry-summary: the entry's dependencies, extension pack, engine and
//     declared capabilities are the package's;
//   - layout-invalid: the repository has the OCI oci-layout file and a
//     well-formed index.json (duplicate tags included);
//   - tag-missing, tag-mismatch: the entry's tag (<platform>-<version>)
//     points at the manifest the catalog pins.
//
// With NoReadData (--no-read-data) manifests are still read, hashed and
// parsed, but blobs are checked by size only and vsix files are not
// opened: no blob-digest, vsix-* or signature-invalid checks.
//
// # Policy and closure
//
//   - dependency-missing, pack-member-missing: every extensionDependencies
//     and extensionPack member of every entry is in the registry (any
//     version; VS Code resolves them by ID). An error, or a warning when
//     the policy given sets dependencies: false. Checked with or without
//     a policy.
//
// With RegistryOptions.Policy (--policy), for every entry:
//
//   - policy-excluded: no exclude pattern matches its ID;
//   - policy-unsigned: upstream signed it when the policy sets
//     requireUpstreamSignature;
//   - policy-denied: policies.Match allows it (a rule selects the ID, or
//     it is a dependency or pack member of an allowed entry when the
//     policy sets dependencies: true; platform, pre-release, version
//     range, engine, size). The latest-N cut is not applied: a registry
//     keeps older versions until pruned.
//
// # Extras (warnings)
//
// What no catalog entry references is listed, never failed: orphan-repo
// (a repository with no entry), orphan-tag (a tag no entry uses: left by
// --prune or an interrupted sync; it is not signed), orphan-blob (a blob
// no entry's manifest references), extra-file (a file the layout has no
// place for, leftover temp files included; in a git store, a path of the
// commit's tree, walked as a directory is). The exception is
// tag-dangling, an error: a tag that points at a missing manifest, which
// no airvsx operation leaves and OCI tools fail on. stray-file: a file in
// metadata/ (a directory's, a git commit's tree, an OCI registry's
// metadata manifest) that the verified chain does not name, each of the
// first 20 by name and the rest counted in one more warning. The chain
// names root.json, timestamp.json, every targets/<sha256>.catalog.json,
// and N.root.json, N.targets.json and N.snapshot.json up to the verified
// version of the role (older ones are history); airvsx copy leaves every
// other file out. quarantine/ is not listed: it is never signed.
//
// # Control lists
//
// The extension control lists (kill lists) the catalog's head pins
// (index.ControlRef; each stored by content as
// targets/<sha256>.control.json) are read through the chain: one missing
// or changed fails like a changed shard (trust-missing, trust-mismatch,
// naming the file); one that does not parse is control-invalid. Each
// entry is then judged as VS Code judges an extension (index/control):
//
//   - control-malicious (an error): a list names the entry, or its
//     publisher, as malicious;
//   - control-deprecated (a warning): a list deprecates it; the message
//     names the replacement;
//   - control-overridden (a note): the policy's control.allow overrides
//     the list for the entry, with its reason;
//   - control-stale, control-none (warnings, with a policy whose
//     control.maxAge bounds the lists' age): a list fetched longer ago,
//     or none carried.
//
// The report's catalog summary lists the lists carried (Control); a
// registry that carries none still verifies.
//
// # Notes
//
// local-entry: an entry added by hand (airvsx add, index.Entry.Local),
// named with the key that added it and when. It has no upstream
// signature, and none is demanded: requireUpstreamSignature does not
// apply to it (the registry's key vouches for it); every other check,
// the policy's other rules included, applies as to any entry.
//
// # Package
//
// Package is the single-package gate: vsix-unsafe and vsix-package (Path
// is then the archive entry), with PackageOptions.Sigzip and UpstreamKey
// signature-invalid, and with a policy what the policy would do with this
// file, decided as sync decides (the latest-N cut aside) and reported as
// PackageSummary.Policy (verdict, rule, reason) and a "policy:" line of
// the text report:
//
//   - allowed: the first rule of extensions that names the ID admits
//     this build; the verdict names the rule ("rule 0 (ns.name)");
//   - dependency: no rule names the ID, but the policy sets
//     dependencies: true and would admit this build as a dependency or
//     extension-pack member. It enters a registry only when an extension
//     the policy selects depends on it or lists it in its pack, which the
//     file alone cannot tell: policy-dependency-only, a warning (the
//     file is acceptable, exit status 0, but not on its own);
//   - denied, with an error: policy-excluded (an exclude pattern, named),
//     policy-unsigned (requireUpstreamSignature, and no verified
//     signature: a package without --sigzip counts as unsigned), or
//     policy-denied: no rule matches and dependencies: false, or the
//     deciding rule (or, for a dependency, the rule dependencies: true
//     gives: any version, no pre-releases) refuses the platform,
//     pre-release, version, engine or size.
//
// The fixes of a package's problems are about the file ("do not install
// this file", which policy rule to add or change), never about a
// registry.
//
// # Reports
//
// Report.Write writes text (a summary line, then problems grouped by
// entry with their fixes), JSON (the Report itself: REPORT.md documents
// the schema, SchemaVersion names it), SARIF 2.1.0 (one result per
// problem, located by file relative to the base id REGISTRY and by entry
// as a logical location) and JUnit XML (one test case per entry plus one
// named "registry" for the problems of no single entry; warnings and
// notes in system-out). SARIF gives a note the level "note".
package verify
