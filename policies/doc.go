// Package policies owns the policy file: what an admin allows into the
// registry and which capabilities each extension is granted.
//
// A policy is YAML decoded strictly and described by the JSON Schema in
// schema.json (draft 2020-12); examples/ holds commented examples. The
// decisions (does an extension build match, which versions to keep, which
// capabilities an extension gets) are pure functions with no I/O.
//
// # The file
//
//	version: 1                        # required; the only format version
//	upstream: https://open-vsx.org    # optional; sync's --upstream overrides it
//	editor: 1.95.0                    # optional; engines.vscode must accept it
//	platforms: [universal, linux-x64] # default [universal]
//	extensions:                       # required, at least one; first match wins
//	  - id: redhat.java               # exact ID, "ns.*" or a glob
//	    versions: ">=1.30.0"          # SemVer range; default any
//	    latest: 3                     # newest N per platform, or all; default 1
//	    preRelease: false             # default false
//	exclude: [evil.*]                 # wins over everything; default none
//	dependencies: true                # default false
//	requireUpstreamSignature: true    # default false
//	maxVsixBytes: 268435456           # default 256 MiB
//	capabilities:                     # default none: every capability denied
//	  - id: redhat.java
//	    versions: "*"                 # default any (pre-releases included)
//	    grant: [spawn, network]
//	    declare: [spawn]
//	    programs: [/usr/bin/java]     # what the spawn broker may start
//	    hosts: [api.example.com, "*.example.org:8443"] # what fetch may reach
//	catalog:
//	  expires: 90d                    # d, h or m; 1m..1825d; default 90d
//
// # Decoding rules
//
// Parse refuses, each reported with file:line:column:
//
//   - a file larger than MaxFileBytes (1 MiB), checked before any parsing;
//   - anchors, aliases and merge keys (so no alias expansion, no "billion
//     laughs"), tags and directives: a policy needs none of them;
//   - flow collections nested deeper than 10 levels, lines indented past
//     column 256, more than 8 block sequences opened on one line (these keep
//     the parser's work linear in the input);
//   - more than one YAML document, an empty document, a top level that is
//     not a mapping;
//   - duplicate keys, unknown fields (names are case-sensitive);
//   - a value of the wrong YAML type: integers must be written as integers
//     (not "1" or 1.0), booleans as true or false (not yes or "true"),
//     lists as lists, null list items. A string field takes any single-line
//     scalar as written, so versions: 1.10 means "1.10". A field written as
//     null counts as absent. A leading UTF-8 byte order mark is ignored.
//
// # Validation rules
//
// After decoding, every semantic problem is collected and reported at
// once (errors.Join of *Error, each with file, line, column and field):
//
//   - version is present and 1;
//   - upstream, if present, is an absolute URL with a host and no user
//     information, query or fragment; its scheme is https, or http only for
//     a loopback host (localhost, 127.0.0.0/8, ::1), which tests and demos
//     use;
//   - editor, if present, is a strict SemVer version (index.ParseVersion);
//   - platforms, if present, is a non-empty list of known target platforms
//     (index.ParsePlatform) without duplicates;
//   - extensions has at least one rule; each rule's id is a valid Pattern;
//     versions, if present, is a non-empty Masterminds SemVer constraint
//     ("*" = any); latest is 1 to 2147483647 or all (0 is an error, not
//     the default);
//   - each exclude entry is a valid Pattern;
//   - maxVsixBytes, if present, is positive;
//   - each capabilities entry has a valid id Pattern and versions
//     constraint, lists at least one capability in grant or declare, and
//     names only known capabilities (index.ParseCapability); hosts, only
//     in an entry whose grant lists network, is a non-empty list of
//     distinct ParseHost entries (host, host:port, [IPv6]:port, *.domain;
//     lower-cased); programs, only in an entry whose grant lists spawn, is
//     a non-empty list of distinct absolute clean paths (ParseProgram);
//   - catalog.expires, if present, is a whole number with one unit d, h or
//     m, from 1m to 1825d (five years).
//
// # Decisions
//
// Match checks one build in this order, refusing with the first failure:
// exclusion, the first rule whose ID pattern matches, platform,
// pre-release, version range, engines.vscode against editor, upstream
// signature, size. Select applies Match to all builds of one extension and
// keeps, per platform, the newest latest versions (releases and
// pre-releases counted separately). Capabilities unions every matching
// capabilities entry: Effective = (declared ∪ declared by policy) ∩
// granted; its Hosts and Programs are the sorted unions of the
// entries' lists, what the extension host's brokers allow. Wants, ExactIDs and HasGlobs tell the planner what to look up;
// WithDependencies adds the dependency closure when dependencies is set.
package policies
