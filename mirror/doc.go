// Package mirror is the sync engine: it plans what an upstream Open VSX
// registry offers against a policy and the previous catalog, downloads and
// verifies the packages, stores them and signs the new catalog. It talks to
// the upstream only through the client it is given (package
// mirror/openvsx), and opens no connection of its own.
package mirror
