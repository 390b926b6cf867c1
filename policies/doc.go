// Package policies owns the policy file: what an admin allows into the
// registry and which capabilities each extension is granted.
//
// A policy is YAML decoded strictly (an unknown field is an error naming its
// line) and described by the JSON Schema in schema.json. The decisions
// (does an extension version match, which versions to keep, which
// capabilities an extension gets) are pure functions with no I/O.
package policies
