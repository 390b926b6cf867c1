package policies

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/Masterminds/semver/v3"

	"github.com/airvsx/airvsx/index"
)

const (
	// FormatVersion is the only policy format version: "version: 1".
	FormatVersion = 1
	// MaxFileBytes is the largest policy file accepted: 1 MiB.
	MaxFileBytes = 1 << 20
	// DefaultMaxVsixBytes is maxVsixBytes when the policy does not say:
	// 256 MiB.
	DefaultMaxVsixBytes int64 = 256 << 20
	// LatestAll is Rule.Latest for "latest: all": keep every matching
	// version.
	LatestAll = math.MaxInt32
)

// DefaultPlatforms is the platforms list when the policy does not say:
// only universal builds. Extensions that publish only platform-specific
// builds need their platforms listed.
var DefaultPlatforms = []index.Platform{index.Universal}

// Policy is a decoded and validated policy file. Parse and Load fill every
// field, defaults included; a Policy built by hand treats zero fields as
// their defaults in decisions.
type Policy struct {
	// Version is the format version; always FormatVersion.
	Version int
	// Upstream is the Open VSX base URL, "" when the file names none (sync
	// then needs --upstream, which also overrides it). It is https, or http
	// to a loopback host.
	Upstream string
	// Editor is the editor version every kept extension's engines.vscode
	// must accept; nil (the default) skips the engine check.
	Editor *semver.Version
	// Platforms are the target platforms to keep. Default DefaultPlatforms.
	Platforms []index.Platform
	// Extensions are the rules selecting what to mirror; the first rule
	// whose ID pattern matches an extension decides for it. At least one.
	Extensions []Rule
	// Exclude lists ID patterns that are never mirrored, whatever the rules
	// or dependencies say. Default none.
	Exclude []Pattern
	// Dependencies pulls in the extensionDependencies and extensionPack
	// members of selected extensions (see WithDependencies). Default false.
	Dependencies bool
	// RequireUpstreamSignature refuses versions Open VSX did not sign.
	// Default false.
	RequireUpstreamSignature bool
	// MaxVsixBytes is the largest .vsix accepted. Default
	// DefaultMaxVsixBytes.
	MaxVsixBytes int64
	// CapabilityRules grant (and declare) capabilities per ID and version
	// (the file's capabilities field); see Capabilities.
	// Default none: every capability denied.
	CapabilityRules []CapabilityRule
	// CatalogExpires is how long a signed catalog stays valid. Default
	// DefaultCatalogExpires.
	CatalogExpires time.Duration

	// Control is which extension control lists the registry carries
	// and the explicit overrides of them (the control section).
	Control Control

	name string
	raw  []byte
}

// Rule is one entry of extensions: which versions of the extensions its ID
// pattern selects are kept.
type Rule struct {
	// ID selects the extensions the rule applies to.
	ID Pattern
	// Versions limits the versions kept. Default: any.
	Versions Constraint
	// Latest keeps the newest Latest matching versions per platform (and,
	// separately, the newest Latest pre-releases when PreRelease is set).
	// Default 1; LatestAll keeps every matching version.
	Latest int
	// PreRelease admits pre-release versions. Default false.
	PreRelease bool
	// Dependency marks a rule WithDependencies added for an extension the
	// file does not select itself; such rules are not written by
	// MarshalYAML.
	Dependency bool
}

// CapabilityRule grants capabilities to the versions of the extensions its
// ID pattern selects, and may declare them on the extension's behalf.
type CapabilityRule struct {
	// ID selects the extensions the rule applies to.
	ID Pattern
	// Versions limits the versions the rule applies to (pre-releases
	// included). Default: any.
	Versions Constraint
	// Grant is what the extension may have. Default none.
	Grant index.CapabilitySet
	// Declare is declared on behalf of an extension that predates
	// capability declarations. Default none.
	Declare index.CapabilitySet
	// Hosts are the hosts the network broker lets the extension reach
	// (the file's hosts: "host", "host:port" or "*.domain", lower-case);
	// only in a rule that grants network. Default none.
	Hosts []string
	// Programs are the programs (absolute, clean paths) the spawn broker
	// lets the extension start; only in a rule that grants spawn.
	// Default none.
	Programs []string
}

// Name returns the file name the policy was parsed under.
func (p *Policy) Name() string { return p.name }

// Bytes returns a copy of the policy file exactly as read.
func (p *Policy) Bytes() []byte { return slices.Clone(p.raw) }

// Digest returns "sha256:<hex>" of the file exactly as read; the catalog
// records it as the policy used.
func (p *Policy) Digest() string {
	return index.DigestBytes(p.raw)
}

// ErrInvalid is the category of every problem Parse reports: errors.Is(err,
// ErrInvalid) holds for an error from Parse or Load about the file's
// content (but not for one opening or reading it).
var ErrInvalid = errors.New("invalid policy")

// Error is one problem in a policy file. Parse joins every problem it finds
// with errors.Join.
type Error struct {
	// File is the name given to Parse.
	File string
	// Line and Column locate the problem, 1-based; 0 when it has no place
	// (a missing field, an oversized file).
	Line, Column int
	// Field is the path of the field at fault ("extensions[2].versions"),
	// empty for syntax problems.
	Field string
	// Msg says what is wrong.
	Msg string
}

// Error returns "file:line:col: field: msg", leaving out what is unknown.
func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s += fmt.Sprintf(":%d:%d", e.Line, e.Column)
	}
	s += ": "
	if e.Field != "" {
		s += e.Field + ": "
	}
	return s + e.Msg
}

// Is makes errors.Is(err, ErrInvalid) hold.
func (e *Error) Is(target error) bool { return target == ErrInvalid }
