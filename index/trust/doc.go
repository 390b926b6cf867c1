// Package trust is the trust path of a registry: the keys (cosign-format
// ECDSA P-256), the TUF chain that signs the catalog (Publish, RotateRoot,
// Load), the operator's anchor (Anchor: a pinned root or the signer's
// key, checked on every run by Check), the rollback state a verifier
// keeps between runs (StateDir), and reading a catalog unverified, clearly
// marked (ReadUnverified). Every command that reads a registry's catalog
// goes through it; none re-implements any part of it.
//
// Registries are read through store.Store (Metadata adapts a store's
// metadata files to the TUF reader and writer), so the same trust path
// serves every kind of place.
package trust
