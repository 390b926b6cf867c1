// Package mirror is the upstream client (the Open VSX API) and the sync
// engine. It is the only package of airvsx that opens network connections,
// and only to the upstream it is explicitly given.
package mirror
