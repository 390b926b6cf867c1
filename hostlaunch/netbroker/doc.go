// Package netbroker makes the HTTP requests the extension host's network
// broker allows (host.Fetcher). It is the only code of the extension host
// that links an HTTP client, and only the binary (cmd/airvsx) imports it:
// hostlaunch/host checks an extension's fetch against its allowed hosts
// and hands the request over.
//
// Every request is bounded: FetchTimeout (30 s) in all, redirects and body
// included; a response body over MaxFetchBody (16 MiB) is an error, never
// truncated. No proxy from the environment is used. A redirect is followed
// (at most 10) only to a URL host.HostAllowed accepts under the asking
// extension's list, else the request fails with a *host.HostNotAllowedError
// and the target is never contacted.
package netbroker
