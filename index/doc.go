// Package index is the vocabulary of airvsx: extension IDs, versions, target
// platforms, registry entries and the catalog that lists them.
//
// Everything else in airvsx speaks in these types. The catalog has a
// canonical JSON encoding: the same content always gives the same bytes, so
// a catalog can be hashed, signed and compared byte for byte.
//
// Later the package also owns the registry format and its stores (a
// directory of OCI image layouts, a git repository, an OCI registry) and the
// signing of the catalog.
package index
