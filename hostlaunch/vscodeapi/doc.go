// Package vscodeapi knows the names of the VS Code extension API and which
// of them the airvsx extension host implements.
//
// api.json lists, for the API version the host offers
// (install.APIVersion), every run-time name of module 'vscode'
// (namespaces, classes, enums, functions, variables: interfaces and type
// aliases do not exist at run time) and the members of each namespace:
// identifiers only, read from @types/vscode's index.d.ts. The host's
// guard (hostlaunch/host/js/unsupported.js) reads the same bytes
// (APIJSON): an API name the host lacks throws "vscode.X is not supported
// by the airvsx host" instead of being undefined.
//
// surface.json lists the names of api.json the host's vscode module
// implements, computed by running node on it. Supported and Unsupported
// answer from it; inspect and install use them to report the API members
// an extension's code names (vsix.Inspection.APIMembers) that the host
// does not implement.
//
// Both files are generated:
//
//	go run ./hostlaunch/internal/cmd/genvscodeapi -api      # api.json, needs npm
//	go run ./hostlaunch/internal/cmd/genvscodeapi -surface  # surface.json, needs node
//
// (go generate ./hostlaunch/vscodeapi does the second). TestSurfaceCurrent
// in hostlaunch/host fails when surface.json is stale.
package vscodeapi

//go:generate go run ../internal/cmd/genvscodeapi -surface
