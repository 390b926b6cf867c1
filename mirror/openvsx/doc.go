// Package openvsx is the client of an upstream Open VSX registry: the API
// calls and the JSON shapes they return, and the HTTP client under them
// (rate limiting, retries with backoff, the egress allow-list and its log,
// ETag caching, connection errors). It opens network connections only to
// the upstream it is given, and to the storage hosts its file URLs redirect
// to when allowed.
package openvsx
