package verify

import "github.com/airvsx/airvsx/index/problem"

// Rule names one check: index/problem's Rule. Rule names are stable:
// reports, SARIF rule ids, tests and scripts match on them. The package
// comment lists every rule.
type Rule = problem.Rule

// The rules of a registry's trust chain.
const (
	RuleTrustAnchor    Rule = "trust-anchor"    // the pinned root or key does not fit the registry (first use)
	RuleTrustSignature Rule = "trust-signature" // a TUF role is not signed by the keys the trusted root names
	RuleTrustExpired   Rule = "trust-expired"   // a TUF role is past its expiry (a freeze)
	RuleTrustRollback  Rule = "trust-rollback"  // a TUF role's version is lower than the one recorded
	RuleTrustMismatch  Rule = "trust-mismatch"  // a file's length, hash or version differs from what the role above says (mix-and-match)
	RuleTrustMissing   Rule = "trust-missing"   // a metadata file the chain needs is absent
	RuleTrustMalformed Rule = "trust-malformed" // a metadata file is not valid TUF metadata
	// RuleIncomplete is a registry that never published a catalog (no
	// metadata/timestamp.json): the sync or copy that made it stopped
	// first.
	RuleIncomplete Rule = "registry-incomplete"
)

// The rules of a registry kept as a signed history (a git store).
const (
	RuleHistorySignature Rule = "history-signature" // the commit read is not signed by the anchor's key
	RuleHistoryRewound   Rule = "history-rewound"   // the commit read does not descend from the one verified before
)

// The rules of the catalog.
const (
	RuleCatalogInvalid  Rule = "catalog-invalid"  // the signed catalog does not decode or validate
	RuleCatalogChain    Rule = "catalog-chain"    // the catalog's previous digest is not the catalog recorded one serial before
	RuleCatalogRollback Rule = "catalog-rollback" // the catalog's serial is lower than the one recorded
	RuleCatalogFork     Rule = "catalog-fork"     // the catalog has the recorded serial but other bytes
)

// The rules of an entry.
const (
	RuleManifestMissing  Rule = "manifest-missing"  // the manifest blob the catalog pins is absent
	RuleManifestMismatch Rule = "manifest-mismatch" // the manifest blob's size or sha256 is not the pinned one
	RuleManifestInvalid  Rule = "manifest-invalid"  // the manifest is not a well-formed entry manifest
	RuleManifestEntry    Rule = "manifest-entry"    // the manifest's annotations disagree with the catalog entry
	RuleBlobMissing      Rule = "blob-missing"      // a blob the manifest references is absent
	RuleBlobSize         Rule = "blob-size"         // a blob's size differs from its descriptor
	RuleBlobDigest       Rule = "blob-digest"       // a blob's sha256 differs from its descriptor
	RuleBlobUnreadable   Rule = "blob-unreadable"   // a blob could not be read (I/O error)
	RuleVsixEntry        Rule = "vsix-entry"        // the vsix layer's digest or size is not the entry's vsixSha256 or vsixSize
	RuleVsixUnsafe       Rule = "vsix-unsafe"       // the vsix breaks a safe-zip rule
	RuleVsixPackage      Rule = "vsix-package"      // the vsix's manifests are missing, invalid or disagree
	RuleVsixIdentity     Rule = "vsix-identity"     // the vsix is another extension, version or platform than the entry
	RuleEntrySummary     Rule = "entry-summary"     // the entry's dependencies, pack or declared capabilities differ from the package's
	RuleSignatureMissing Rule = "signature-missing" // the entry says upstream signed it but has no signature layer, or the other way round
	RuleSignatureKey     Rule = "signature-key"     // the entry's upstream key is not a usable Ed25519 key pinned in the catalog
	RuleSignatureInvalid Rule = "signature-invalid" // the upstream Ed25519 signature does not verify over the vsix
	RuleTagMissing       Rule = "tag-missing"       // the entry's tag is not in its repository's index.json
	RuleTagMismatch      Rule = "tag-mismatch"      // the entry's tag points at another manifest
	RuleLayoutInvalid    Rule = "layout-invalid"    // a repository's oci-layout or index.json is missing or malformed
	RuleTagDangling      Rule = "tag-dangling"      // a tag points at a manifest blob that is absent or of another size
)

// The rules of policy.
const (
	RulePolicyDenied   Rule = "policy-denied"       // the policy does not allow the entry
	RulePolicyExcluded Rule = "policy-excluded"     // the policy excludes the entry's ID
	RulePolicyUnsigned Rule = "policy-unsigned"     // upstream did not sign the entry and the policy requires it
	RuleDependency     Rule = "dependency-missing"  // an extensionDependencies member is not in the registry
	RulePackMember     Rule = "pack-member-missing" // an extensionPack member is not in the registry
	// RulePolicyDependencyOnly (a warning, Package only): no rule names
	// the package's ID; the policy admits it only as a dependency or
	// extension-pack member of an extension it selects.
	RulePolicyDependencyOnly Rule = "policy-dependency-only"
)

// The hints (warnings): things no catalog entry references.
const (
	RuleOrphanRepo Rule = "orphan-repo" // a repository no entry belongs to
	RuleOrphanTag  Rule = "orphan-tag"  // a tag no entry uses
	RuleOrphanBlob Rule = "orphan-blob" // a blob no entry's manifest references
	RuleExtraFile  Rule = "extra-file"  // a file the registry layout has no place for
	RuleStrayFile  Rule = "stray-file"  // a file in metadata/ the signed metadata does not name
)

// The notes: facts a report states, which fail nothing.
const (
	// RuleLocalEntry: the entry was added by hand (airvsx add), not
	// mirrored; it has no upstream signature, and who added it and when
	// are in the message.
	RuleLocalEntry Rule = "local-entry"
)

// The rules of a single package (Package) beyond the vsix rules above.
const (
	RulePackageUnreadable Rule = "package-unreadable" // the file could not be read
)

// ruleInfo describes a rule for SARIF and the text report: what it
// checks and what to do when it fails.
type ruleInfo struct {
	short string
	fix   string
}

const (
	fixRecopy   = "copy the registry again from a good copy (the publisher's, or the connected side's) with airvsx copy --repair GOOD THIS, which replaces what is damaged and keeps it in the quarantine: this copy was altered or damaged after it was signed"
	fixResign   = "on the connected side, run airvsx sync again (it signs a fresh catalog) and carry the registry across again"
	fixMetadata = "copy the registry's metadata/ directory again from the publisher; never edit it by hand"
	fixPolicy   = "remove the entry (narrow the policy and run airvsx sync --prune on the connected side), or change the policy if it should be allowed"
	fixOrphan   = "nothing is wrong: no signed entry uses it; it is left by --prune or an interrupted sync, and installers never read it; airvsx gc removes it (after a copy or sync that was interrupted has been run again)"
)

var rules = map[Rule]ruleInfo{
	RuleControlMalicious:  {"No entry is named malicious by the extension control lists the registry carries", "do not install it: remove it on the connected side (airvsx prune with a policy that excludes it) and carry the registry across again; if the list is wrong for you, override the one extension in the policy's control.allow with the reason"},
	RuleControlDeprecated: {"Entries the extension control lists deprecate are named, with their replacement", "move to the replacement named; the entry still installs unless the list disallows its install"},
	RuleControlOverridden: {"Entries a control list names but the policy's control.allow overrides are named, with the reason", "nothing to fix: the policy overrides the list for this extension; remove the override when it is no longer needed"},
	RuleControlInvalid:    {"Every extension control list the catalog pins is well-formed", fixResign},
	RuleControlNone:       {"The registry carries an extension control list (kill list)", "on the connected side, run airvsx sync with the list's URL (the policy's control.url) and carry the registry across again"},
	RuleControlStale:      {"No extension control list is older than the policy's control.maxAge", "on the connected side, run airvsx sync again (it fetches the list again) and carry the registry across"},

	RuleLocalEntry: {"Entries added by hand (airvsx add) are named: they have no upstream signature", "nothing to fix: it was added with airvsx add and is vouched for by the key that signed the catalog; check that the key named is one of yours"},

	RuleTrustAnchor:    {"The trust anchor fits the registry", "pass the root.json or key the publisher gave you out of band (--root or --key); if the publisher rotated keys, get the new root from them"},
	RuleTrustSignature: {"Every TUF role is signed by the keys the trusted root names", "this registry is not signed by the key you trust: get it again from its publisher; never re-sign a registry you received"},
	RuleTrustExpired:   {"No TUF role has expired (freeze attack)", fixResign},
	RuleTrustRollback:  {"No TUF role is older than the version recorded before (rollback attack)", "this copy is older than one verified before: get the current registry; to go back on purpose, delete the recorded state (see trust.stateDir)"},
	RuleTrustMismatch:  {"Every metadata file matches the length, hash and version the role above pins (mix-and-match)", fixMetadata},
	RuleTrustMissing:   {"Every metadata file the chain needs is present", fixMetadata},
	RuleTrustMalformed: {"Every metadata file is valid TUF metadata", fixMetadata},
	RuleIncomplete:     {"The registry has published a signed catalog (metadata/timestamp.json)", "run the sync (or the copy) that made this registry again: it finishes the registry, reusing what it stored; if the registry came from elsewhere, copy it again from its publisher"},

	RuleHistorySignature: {"The commit read is signed by the trusted key (SSH signature, namespace git)", "this history was not signed by the key you trust, or a commit was added on top by someone else: fetch the registry again from its publisher"},
	RuleHistoryRewound:   {"The commit read descends from the commit verified before", "this copy's branch was rewound or rewritten (a force push, an old copy): get the current registry; to go back on purpose, delete the recorded state (see trust.stateDir)"},

	RuleCatalogInvalid:  {"The signed catalog decodes and every entry is well formed and unique", "the publisher signed a broken catalog: run airvsx sync again on the connected side with a current airvsx"},
	RuleCatalogChain:    {"The catalog links to the catalog verified one serial before", "the registry's history forked: find out who signed this catalog; if it is right, delete the recorded state (see trust.stateDir)"},
	RuleCatalogRollback: {"The catalog's serial is not lower than the one verified before", "this copy is older than one verified before: get the current registry"},
	RuleCatalogFork:     {"A catalog serial always names the same catalog", "two different catalogs carry the same serial: find out who signed them; the registry's history forked"},

	RuleManifestMissing:  {"Every entry's manifest is present", fixRecopy},
	RuleManifestMismatch: {"Every entry's manifest has the size and sha256 the catalog pins", fixRecopy},
	RuleManifestInvalid:  {"Every manifest is a well-formed airvsx entry manifest (OCI 1.1 artifact)", fixResign},
	RuleManifestEntry:    {"Every manifest's annotations match its catalog entry", fixResign},
	RuleBlobMissing:      {"Every blob a manifest references is present", fixRecopy},
	RuleBlobSize:         {"Every blob has the size its descriptor gives", fixRecopy},
	RuleBlobDigest:       {"Every blob has the sha256 its descriptor gives", fixRecopy},
	RuleBlobUnreadable:   {"Every blob can be read", "check the medium (a failing USB stick or disk): the file could not be read"},
	RuleVsixEntry:        {"The vsix layer is the package the catalog entry names (vsixSha256, vsixSize)", fixResign},
	RuleVsixUnsafe:       {"Every vsix passes the safe-zip rules", "do not install this package: it is a hostile or broken archive; remove the entry (airvsx sync --prune after excluding it) and report it upstream"},
	RuleVsixPackage:      {"Every vsix has valid manifests that agree", "do not install this package; remove the entry and report it upstream"},
	RuleVsixIdentity:     {"Every vsix is the extension, version and platform of its entry", "do not install this package: it is not what the entry names; copy the registry again from a good copy"},
	RuleEntrySummary:     {"The catalog's summary of an entry matches its package", fixResign},
	RuleSignatureMissing: {"An entry has an upstream signature layer exactly when it says upstream signed it", fixRecopy},
	RuleSignatureKey:     {"The upstream key of a signed entry is an Ed25519 key pinned in the catalog", fixResign},
	RuleSignatureInvalid: {"The upstream Ed25519 signature verifies over the vsix", "do not install this package: Open VSX did not sign these bytes; copy the registry again from a good copy"},
	RuleTagMissing:       {"Every entry is tagged in its repository", fixRecopy},
	RuleTagMismatch:      {"Every entry's tag points at the manifest the catalog pins", fixRecopy},
	RuleLayoutInvalid:    {"Every repository is a well-formed OCI image layout", fixRecopy},
	RuleTagDangling:      {"No tag points at a missing manifest", fixRecopy},

	RulePolicyDenied:   {"The policy allows every entry", fixPolicy},
	RulePolicyExcluded: {"No entry's ID is excluded by the policy", fixPolicy},
	RulePolicyUnsigned: {"Every entry is signed upstream when the policy sets requireUpstreamSignature", fixPolicy},
	RuleDependency:     {"Every extensionDependencies member is in the registry", "add the dependency to the registry (policy dependencies: true, then airvsx sync), or remove the extension that needs it"},
	RulePackMember:     {"Every extensionPack member is in the registry", "add the pack member to the registry (policy dependencies: true, then airvsx sync), or remove the pack"},

	RulePolicyDependencyOnly: {"A single package is named by a rule of the policy, not only admitted as a dependency or pack member", fixPackageDependencyOnly},

	RuleOrphanRepo: {"Every repository holds a catalog entry", fixOrphan},
	RuleOrphanTag:  {"Every tag belongs to a catalog entry", fixOrphan},
	RuleOrphanBlob: {"Every blob belongs to a catalog entry", fixOrphan},
	RuleExtraFile:  {"The registry holds only files its layout defines", "nothing signed uses it; find out where it came from and remove it"},
	RuleStrayFile:  {"metadata/ holds only files the signed metadata names", "no signature covers it and nothing reads it: find out where it came from and remove it; airvsx copy leaves it out"},

	RulePackageUnreadable: {"The package file can be read", "check the path and the medium"},
}

// The fixes of a single package (Package): about the file in hand, not
// about a registry entry (never sync --prune).
const (
	fixPackagePolicy         = "do not install this file; install a build the policy allows, or change the policy if this one should be allowed"
	fixPackageExcluded       = "do not install this file: the policy bans it; if it should be allowed, remove or narrow the exclude pattern that matches it"
	fixPackageUnsigned       = "do not install this file unless Open VSX's signature over it verifies: pass its .sigzip with --sigzip and --openvsx-key (the policy sets requireUpstreamSignature)"
	fixPackageDependencyOnly = "install this file only together with the selected extension that depends on it or lists it in its pack; to allow it on its own, add a rule for its ID to the policy's extensions"
)

// packageFixes are the fixes that differ for a single package.
var packageFixes = map[Rule]string{
	RulePolicyDenied:         fixPackagePolicy,
	RulePolicyExcluded:       fixPackageExcluded,
	RulePolicyUnsigned:       fixPackageUnsigned,
	RulePolicyDependencyOnly: fixPackageDependencyOnly,
	RuleVsixUnsafe:           "do not install this file: it is a hostile or broken archive; report it upstream",
	RuleVsixPackage:          "do not install this file: its manifests are missing, invalid or disagree; report it upstream",
	RuleSignatureInvalid:     "do not install this file: Open VSX did not sign these bytes with the key given; get the file and its .sigzip again from Open VSX",
}

// CopyRepairs reports whether copying the registry again from a good copy
// (airvsx copy --repair) fixes a problem of rule r: the stored bytes of
// a directory registry are not the ones its signed metadata pins.
func CopyRepairs(r Rule) bool { return rules[r].fix == fixRecopy }

// fixFor returns the rule's fix.
func fixFor(r Rule) string { return rules[r].fix }

// packageFixFor returns the rule's fix for a single package.
func packageFixFor(r Rule) string {
	if fix, ok := packageFixes[r]; ok {
		return fix
	}
	return fixFor(r)
}
