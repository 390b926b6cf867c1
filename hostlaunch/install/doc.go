// Package install installs extensions into an extensions directory, from a
// registry's signed catalog or from a .vsix file, uninstalls them, and
// loads the directory for the extension host. It never opens a network
// connection: a registry is read through store.Store.
//
// The extensions directory DIR holds:
//
//	installed.json                      the record of what is installed (Index)
//	<ns>.<name>-<version>[@platform]/   one folder per extension (FolderName):
//	                                    what the package has under extension/,
//	                                    so package.json is at its top, as VS Code
//	                                    lays out its extensions
//	.quarantine/<name>-<time>/          packages that failed to install: REASON
//	                                    and the .vsix; never loaded, never deleted
//
// One version of an extension is installed at a time; installing another
// replaces it. Installs and uninstalls lock DIR itself (flock on the
// directory, so the lock leaves no file) and fail at once if another
// holds it. Staging folders (.install-*, .uninstall-*) live in DIR, so
// every move into place is a rename on one file system; they are removed
// when the run ends. A run that is killed leaves its staging folder, and
// between its renames and the write of installed.json that folder may
// hold the only copy of a folder installed.json still records (an
// install moves a replaced folder aside to old-<n>-<folder>, an uninstall
// moves the folder itself). So the next install, uninstall or other
// write, under the lock, and list, through Tidy (which skips a directory
// another holds), put back from staging every recorded folder that is
// missing or changed when a copy there matches its recorded files, and
// then remove the staging folders.
//
// # Install
//
// An install checks, and refuses with a *RefusedError (errors.Is
// ErrRefused) listing every problem found:
//
//   - from a registry: the trust chain from the operator's anchor and the
//     catalog's history, as verify checks them (index/trust), recording
//     the verified chain in the state directory as verify does; the entry's
//     OCI manifest; the vsix's size and sha256 against the catalog;
//   - the archive rules of index/vsix (safe zip) and its manifest rules
//     (package.json and the vsixmanifest agree; contributes.commands need
//     command and title, contributes.languages an id);
//   - from a registry, the package is the entry the catalog names
//     (identity, version, platform);
//   - the build is universal or for this machine's platform
//     (index.HostPlatform; Options.Platform);
//   - engines.vscode accepts the host's API version (APIVersion);
//   - themes, icon themes, product icon themes, grammars and snippets name
//     a file in the package, with the members VS Code requires;
//   - an extension with code has main in the package;
//   - every activation event, listed or implied by a contribution, is one
//     the host honours (HonouredActivation), unless
//     Options.AllowPartialActivation records the others as ignored.
//
// Unknown contribution points and capability keys are logged and
// ignored. A refused package is quarantined. Dependencies
// (extensionDependencies) and extension-pack members are installed first,
// from the same catalog, unless already installed; cycles are installed
// once. Nothing is installed unless every package of the run passes: each
// is unpacked with the safe extraction into staging, then all are renamed
// into place and installed.json is written once (atomically); a failure
// undoes every rename.
//
// # installed.json
//
// Strictly decoded (Decode: unknown fields, trailing data, a second
// record for an ID, a folder other than FolderName are errors naming the
// file). Per extension: ID, version, platform, folder, the vsix's sha256,
// the tree hash and the files it covers (TreeHash), the source (the
// registry place, catalog serial and digest, manifest digest and whether
// upstream signed it; or the local file, never signed), main, the
// activation events the host honours and whether one is "*" (eager), the
// ignored ones, dependencies and pack members, declared capabilities and
// effective ones (declared, or declared by the policy, ∩ granted by the
// policy) each with the rule that grants it (policies.GrantedBy), the
// install time, enabled or disabled with the reason, the time of the
// last activation (set by the host; zero until then), and the seal.
//
// # The seal
//
// installed.json grants capabilities, and an extension that could write
// it (through a workspace holding the extensions directory) could grant
// itself spawn or a network host. So every record carries a seal,
// "hmac-sha256:" and the hex HMAC-SHA256 of the record's JSON without the
// seal, under a key of the user's: SealKeyFile (install-seal.key, 32
// random bytes, 0600) in the launcher's state directory
// (DirOptions.StateDir, Options.StateDir; default trust.DefaultStateDir(),
// $XDG_STATE_HOME/airvsx or ~/.local/state/airvsx), which no extension
// can read: run refuses a workspace or storage that holds it, and the
// sandbox never grants it. Every write of installed.json (install,
// uninstall, Disable, MarkActivated) seals every record, making the key
// (and the state directory, 0700) when it is missing; Load, which run and
// list use, only reads the key.
//
// A record whose seal is missing or does not verify (one something else
// added or changed, one written by an older airvsx, one copied from
// another machine), and every record when there is no key, is not
// trusted: it is read disabled, with its grants (capabilities,
// allowedHosts, programs) removed and a reason saying which of these it
// is, and Load warns of it. Since the grants are gone from what is read,
// the next write, which seals the record, seals it disabled and without
// them: a forged grant never becomes a genuine one. Installing the
// extension again records and seals it afresh. A seal says that airvsx
// wrote the record for this user, not when or for which directory: a
// record sealed earlier, or in another extensions directory of the same
// user, still verifies where it is put back.
//
// # Load
//
// Load reads installed.json, distrusts the unsealed records (above) and
// recomputes every enabled extension's tree: one whose files changed (or
// whose folder is missing) is disabled, with a warning naming the first
// changed file.
package install
