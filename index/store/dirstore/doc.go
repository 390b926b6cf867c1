// Package dirstore is the directory store: a registry in a local
// directory, one OCI image layout per repository (see Store for the
// layout and how every write is made crash-safe). Open opens one.
package dirstore
