// Package transfer copies a registry from one place to another (airvsx
// copy): any store.Store to any other, a directory, a git repository or an
// OCI registry alike, since it reads and writes only through the Store
// interface.
//
// Copy works in this order, and stops at the first step that fails:
//
//  1. The source's trust chain is checked from the operator's anchor
//     (index/trust.Check, offline, as verify checks it: signatures,
//     expiry, versions against the state directory) and its catalog is
//     decoded and checked against the catalog history the state recorded.
//     The metadata bytes checked are the bytes copied: the source's
//     metadata is read once.
//  2. The destination's current state is read through its own chain (from
//     its own 1.root.json; expiry is not checked, so an expired copy can
//     be refreshed). A destination whose chain starts from another root
//     (another operator) is refused naming both roots' key IDs; one whose
//     catalog serial is newer than the source's (a rollback), or of the
//     same serial but another digest (a fork), is refused naming both
//     serials or digests; one whose metadata does not verify is refused
//     too. Options.Force overrides each of these, and says so in the log
//     and the report.
//  3. The plan: every manifest the catalog pins is read from the source
//     (by digest and size, verified) and checked against its entry; every
//     blob the destination lacks (by digest, StatBlob) is planned, with
//     every tag the destination lacks or has elsewhere and every metadata
//     file it lacks or holds with other bytes. A dry run stops here.
//     Then a destination that can say its free space (a directory) is
//     checked to have room for the plan, so that a stick too small stops
//     the copy before a byte moves (ErrNoSpace).
//  4. The blobs move, each read once from the source and hashed while it
//     is written (PutBlob checks size and digest; a store without that
//     check is not a Store). Every blob that is not what its digest says
//     is named (repository, digest); then the copy fails before a tag or a
//     metadata file is written, so the destination's catalog is unchanged.
//  5. The tags, then the metadata: the catalog and the TUF files in an
//     order that keeps the previous state valid until the last write,
//     timestamp.json, which makes the new state valid. A store that groups
//     writes into changes (store.Committer) gets one change for all (none
//     when nothing moved).
//
// So the destination is at every moment its previous verified state or the
// new one, and a copy killed at any point is completed by running it again,
// which moves only what did not arrive. Blobs the destination already
// holds are taken as present by digest and size (as a store's PutBlob
// takes them); airvsx verify checks every byte of the result. When verify
// finds the destination damaged, Options.Repair reads every blob it holds
// and checks its layouts, and replaces what is damaged (a directory
// destination), keeping the damaged files in its quarantine.
//
// Two windows remain where a killed copy leaves a destination that does
// not verify until the copy is run again: a tag the destination's old
// catalog pins that the source points elsewhere (the same entry mirrored
// as another manifest), and a source whose root was rotated to new
// timestamp keys (the new root must be written before the timestamp it
// signs, and the old timestamp does not verify under it). A copy forced
// over another operator's registry has the second window too.
//
// Copy never copies the quarantine: quarantined files are never signed,
// and stay where they were rejected. A repair adds the destination's own
// damaged files to its quarantine.
package transfer
