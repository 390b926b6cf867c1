// Package prune removes from a registry what its policy no longer
// selects, and frees the bytes nothing refers to any more.
//
// Prune decides every entry of the current catalog offline with the
// policy (policies.Policy.Select over each extension's entries, so a
// "latest: N" rule keeps the newest N; the policy's dependency closure
// counts as selected), keeps an entry a kept one depends on even when the
// policy drops it (and says so: the closure is never broken), signs the
// catalog without the dropped entries as the next serial (chained to the
// current one), and then collects (a store that cannot delete gets the
// dropped entries' tags removed instead).
//
// Collect (gc) keeps, in every repository, the blobs of every manifest the
// current catalog pins (the manifest, its config and its layers) and
// every blob of a repository an unfinished copy or sync is writing (its
// pending record, store.PendingWriter); it untags every tag the catalog
// does not pin and deletes every other blob (store.BlobDeleter), then
// the repositories no entry is in. The order is the crash rule: the
// signed catalog first; then, in each repository, the layers and configs
// of what goes, and its manifests last, each with the tags that point at
// it (an OCI registry finds blobs only through the tags, and no tag may
// point at a missing manifest), each deletion durable before the next,
// so that a collection
// killed at any point leaves a registry whose catalog's every byte is
// present and which verifies; the next run finishes the job. Before it
// untags or deletes it waits for the readers that opened the registry
// before (store.BlobDeleter.ExcludeReaders): a verify, install or site
// that read the previous catalog finishes first. A store that cannot
// delete (a git registry, whose history keeps every blob) is left as it
// is and the report says so.
package prune
