package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/airvsx/airvsx/index"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// ErrInvalidName is wrapped by every error about a hostile or malformed
// repository, digest, tag, metadata or quarantine name.
var ErrInvalidName = errors.New("invalid name")

// Limits on names.
const (
	// MaxTagLen is the longest OCI tag.
	MaxTagLen = 128
	// maxMetadataDepth is the most elements a metadata name may have.
	maxMetadataDepth = 8
	// maxElementLen is the longest path element (most filesystems' limit).
	maxElementLen = 255
)

var (
	elementPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	shortAlias     = regexp.MustCompile(`~[0-9]`)
)

// CheckRepo reports whether repo is a valid repository name: "<ns>/<name>",
// both parts index.ValidName and lower-case, neither a Windows reserved
// device name (index.WindowsReserved) nor shaped like an 8.3 short-name
// alias ("~" then a digit).
// The last two rules keep every registry copyable to a directory on any
// filesystem.
func CheckRepo(repo string) error {
	ns, name, ok := strings.Cut(repo, "/")
	if !ok {
		return fmt.Errorf("repository %q: want <namespace>/<name>: %w", repo, ErrInvalidName)
	}
	for _, part := range []string{ns, name} {
		switch {
		case !index.ValidName(part):
			return fmt.Errorf("repository %q: part %q is not a valid extension name part: %w", repo, part, ErrInvalidName)
		case part != strings.ToLower(part):
			return fmt.Errorf("repository %q: part %q is not lower-case: %w", repo, part, ErrInvalidName)
		case index.WindowsReserved(part):
			return fmt.Errorf("repository %q: part %q is a Windows reserved device name: %w", repo, part, ErrInvalidName)
		case shortAlias.MatchString(part):
			return fmt.Errorf("repository %q: part %q looks like an 8.3 short-name alias: %w", repo, part, ErrInvalidName)
		}
	}
	return nil
}

// ValidDigest reports whether d is "sha256:" followed by 64 lowercase hex
// digits, the only digest form airvsx writes or reads.
func ValidDigest(d string) bool {
	hex, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(hex) != 64 {
		return false
	}
	for i := range len(hex) {
		c := hex[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// CheckDigest is ValidDigest as an error wrapping ErrInvalidName.
func CheckDigest(d string) error {
	if !ValidDigest(d) {
		return fmt.Errorf("digest %q: want sha256:<64 lowercase hex>: %w", d, ErrInvalidName)
	}
	return nil
}

// ValidTag reports whether tag follows the OCI tag grammar
// [A-Za-z0-9_][A-Za-z0-9._-]{0,127}.
func ValidTag(tag string) bool {
	// The OCI distribution spec's ^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$,
	// by hand: as a regexp its bounded repetition compiles to a large
	// program at every start of the binary.
	if len(tag) == 0 || len(tag) > 128 || tag[0] == '.' || tag[0] == '-' {
		return false
	}
	for i := 0; i < len(tag); i++ {
		c := tag[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// CheckTag is ValidTag as an error wrapping ErrInvalidName.
func CheckTag(tag string) error {
	if !ValidTag(tag) {
		return fmt.Errorf("tag %q: want [A-Za-z0-9_][A-Za-z0-9._-]{0,127}: %w", tag, ErrInvalidName)
	}
	return nil
}

// CheckBlobArgs is what a store checks first in every blob method: ctx
// is not done, and repo and digest are valid names (CheckRepo,
// CheckDigest).
func CheckBlobArgs(ctx context.Context, repo, digest string) error {
	if err := CheckRepoArgs(ctx, repo); err != nil {
		return err
	}
	return CheckDigest(digest)
}

// CheckPutBlobArgs is what every store's PutBlob checks first:
// CheckBlobArgs, and a size that is not negative. Its errors are
// PutBlob's own, "put blob: …" and "put blob DIGEST in REPO: negative
// size N".
func CheckPutBlobArgs(ctx context.Context, repo, digest string, size int64) error {
	if err := CheckBlobArgs(ctx, repo, digest); err != nil {
		return fmt.Errorf("put blob: %w", err)
	}
	if size < 0 {
		return fmt.Errorf("put blob %s in %s: negative size %d", digest, repo, size)
	}
	return nil
}

// CheckTagArgs is CheckBlobArgs for the tag methods: ctx is not done, and
// repo and tag are valid names (CheckRepo, CheckTag).
func CheckTagArgs(ctx context.Context, repo, tag string) error {
	if err := CheckRepoArgs(ctx, repo); err != nil {
		return err
	}
	return CheckTag(tag)
}

// CheckMetadataArgs is CheckBlobArgs for the metadata methods: ctx is not
// done, and name is a valid metadata name (CheckMetadataName).
func CheckMetadataArgs(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return CheckMetadataName(name)
}

// CheckQuarantineArgs is CheckBlobArgs for Quarantine: ctx is not done,
// and the quarantine's name and the names of its files are valid
// (CheckQuarantine).
func CheckQuarantineArgs(ctx context.Context, name string, files map[string]io.Reader) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return CheckQuarantine(name, slices.Collect(maps.Keys(files)))
}

// CheckRepoArgs is what a store checks first in every method on one
// repository: ctx is not done, and repo is a valid name (CheckRepo).
func CheckRepoArgs(ctx context.Context, repo string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return CheckRepo(repo)
}

// CheckMetadataName reports whether name is a valid metadata name: a clean
// relative slash path of at most 8 elements, each element
// [A-Za-z0-9][A-Za-z0-9._-]* of at most 255 bytes and not a Windows
// reserved device name (index.WindowsReserved). So no "..", no
// absolute path, no backslash, no hidden or temporary (".tmp-") file.
func CheckMetadataName(name string) error {
	bad := func(why string) error {
		return fmt.Errorf("metadata name %q: %s: %w", name, why, ErrInvalidName)
	}
	if name == "" || path.Clean(name) != name || strings.HasPrefix(name, "/") {
		return bad("want a clean relative slash path")
	}
	elems := strings.Split(name, "/")
	if len(elems) > maxMetadataDepth {
		return bad(fmt.Sprintf("more than %d elements", maxMetadataDepth))
	}
	for _, e := range elems {
		if err := checkElement(e); err != nil {
			return bad(err.Error())
		}
	}
	return nil
}

// checkElement checks one file name of a metadata or quarantine path.
func checkElement(e string) error {
	switch {
	case len(e) > maxElementLen:
		return fmt.Errorf("element %q is longer than %d bytes", e, maxElementLen)
	case !elementPattern.MatchString(e):
		return fmt.Errorf("element %q: want [A-Za-z0-9][A-Za-z0-9._-]*", e)
	case index.WindowsReserved(e):
		return fmt.Errorf("element %q is a Windows reserved device name", e)
	}
	return nil
}

// QuarantineName turns s (an entry name such as "ns.name@1.0.0+build",
// or a package's file name) into a valid quarantine name or file name:
// every byte outside [A-Za-z0-9._-] becomes "_", a name that does not
// start with a letter or digit, or that is a Windows device name, gets an
// "x" in front, and a name longer than the limit keeps its start and ends
// in "-" and 16 hex digits of the SHA-256 of s. (Quarantine adds ".N" to
// a name already taken, so two inputs that map to one name both keep
// their files.)
func QuarantineName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	name := string(b)
	if name == "" || !elementPattern.MatchString(name) || index.WindowsReserved(name) {
		name = "x" + name
	}
	if len(name) > MaxQuarantineName {
		name = name[:MaxQuarantineName-17] + "-" + index.SHA256Hex([]byte(s))[:16]
	}
	return name
}

// CheckManifestDescriptor reports whether a tag may point at m: an OCI
// image manifest or index media type, a valid digest, a size that is not
// negative. Store.Tag checks it.
func CheckManifestDescriptor(m Descriptor) error {
	return checkManifestDescriptor(m.MediaType, m.Digest, m.Size)
}

func checkManifestDescriptor(mediaType, dgst string, size int64) error {
	if mediaType != ocispec.MediaTypeImageManifest && mediaType != ocispec.MediaTypeImageIndex {
		return fmt.Errorf("mediaType %q: want %s or %s", mediaType, ocispec.MediaTypeImageManifest, ocispec.MediaTypeImageIndex)
	}
	if err := CheckDigest(dgst); err != nil {
		return err
	}
	if size < 0 {
		return fmt.Errorf("size %d is negative", size)
	}
	return nil
}
