package trust

// The trust chain of a registry: the catalog is the single target of a TUF
// repository (go-tuf v2 metadata, ECDSA P-256 keys through sigstore signers).
//
// Layout of a registry's metadata/ directory (consistent snapshots):
//
//	1.root.json, 2.root.json, …   every root ever published, never rewritten
//	root.json                      a copy of the newest root (what users pin with --root)
//	N.targets.json                 targets role: the one target "catalog.json" (length, sha256)
//	N.snapshot.json                snapshot role: version, length and sha256 of N.targets.json
//	timestamp.json                 timestamp role: version, length and sha256 of N.snapshot.json
//	targets/<sha256hex>.catalog.json   the catalog bytes, content-addressed
//
// timestamp.json is the only file that is replaced, and it is written last:
// it is the commit point. Everything it does not (yet) reference is inert, so
// a crash at any moment leaves the previous set valid.
//
// Load follows the TUF client workflow offline, failing closed:
//
//  1. the pinned root verifies with its own keys and threshold;
//  2. N+1.root.json, while present, is signed by the threshold of both the
//     trusted root and itself and has version exactly N+1; the final root
//     must not be expired;
//  3. timestamp.json (at most MaxTimestampBytes) is signed by the root's
//     timestamp keys, not lower than the recorded version, not expired;
//  4. V.snapshot.json (V from the timestamp; at most the length declared
//     there, else MaxSnapshotBytes) matches the timestamp's length and hashes,
//     is signed by the snapshot keys, has version V, not lower than recorded,
//     not expired;
//  5. W.targets.json likewise against the snapshot (cap MaxTargetsBytes);
//  6. the target "catalog.json" is listed with a sha256 and a length of at
//     most index.MaxCatalogBytes; targets/<sha256>.catalog.json is read up to that
//     length + 1 and must match length and hash.
//
// Every metadata file must have the right _type and a spec_version 1.x.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"

	"github.com/airvsx/airvsx/index/store"
)

// Sentinel errors of the trust chain. Every error from Publish, RotateRoot,
// Load and TrustOnFirstUse that is about the content of the metadata wraps
// exactly one of them, with the file and the field named in the message.
var (
	// ErrSignature: a signature does not verify, a role lacks its threshold of
	// valid signatures, or a key is not trusted for the role.
	ErrSignature = errors.New("signature not trusted")
	// ErrExpired: a role's metadata is past its expiry time.
	ErrExpired = errors.New("metadata expired")
	// ErrRollback: a version is lower than the one recorded earlier.
	ErrRollback = errors.New("rollback")
	// ErrMismatch: a file's length, hash or version differs from what the
	// metadata that references it says (including mix-and-match of files from
	// different publishes).
	ErrMismatch = errors.New("mismatch")
	// ErrMissing: a file the chain needs does not exist.
	ErrMissing = errors.New("missing file")
	// ErrMalformed: a file is not valid metadata: unparsable JSON, the wrong
	// _type or spec_version, a missing field, or larger than its size cap.
	ErrMalformed = errors.New("malformed metadata")
)

// Names in a registry's metadata directory.
const (
	// CatalogTarget is the TUF target path of the catalog.
	CatalogTarget = "catalog.json"
	// RootFile is the copy of the newest root that users pin.
	RootFile = "root.json"
	// TimestampFile is the timestamp role's file, the commit point.
	TimestampFile = "timestamp.json"
	// TargetsDir is the directory of the content-addressed target files.
	TargetsDir = "targets"
)

// Size caps for reading metadata whose length is not declared by the role
// above it (the defaults of the go-tuf updater).
const (
	MaxRootBytes      = 512_000
	MaxTimestampBytes = 16_384
	MaxSnapshotBytes  = 2_000_000
	MaxTargetsBytes   = 5_000_000
)

// maxRootRotations bounds how many N+1.root.json files Load follows.
const maxRootRotations = 1024

// State is the versions of the four roles a verifier saw, persisted between
// runs to detect rollback. The zero State records nothing.
type State struct {
	Root      int64 `json:"root"`
	Timestamp int64 `json:"timestamp"`
	Snapshot  int64 `json:"snapshot"`
	Targets   int64 `json:"targets"`
}

// MetadataFS is where the TUF files of a registry live. Names are
// slash-separated paths relative to the metadata directory, such as
// "timestamp.json" or "targets/<hex>.catalog.json".
type MetadataFS interface {
	// Open opens name for reading. A missing file is an error wrapping
	// fs.ErrNotExist. Callers read no more than they need.
	Open(name string) (io.ReadCloser, error)
	// WriteFile replaces name with data atomically and durably: a reader sees
	// the old content or the new, never a mix, and after a crash once
	// WriteFile returned, the new content.
	WriteFile(name string, data []byte) error
}

// displayName is how errors name a metadata file.
func displayName(name string) string { return "metadata/" + name }

// readCapped reads name from fsys, refusing more than max bytes without
// reading past max+1. tooBig is the sentinel for an oversize file: ErrMismatch
// when max is a length the metadata declared, ErrMalformed for a plain cap.
func readCapped(fsys MetadataFS, name string, max int64, tooBig error) ([]byte, error) {
	if c, ok := fsys.(interface {
		readCapped(name string, max int64) ([]byte, error)
	}); ok {
		data, err := c.readCapped(name, max)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, &FileError{File: displayName(name), Err: ErrMissing}
		case errors.Is(err, store.ErrTooLarge):
			return nil, tooLarge(name, max, tooBig)
		case err != nil:
			return nil, &FileError{File: displayName(name), Err: err}
		}
		return data, nil
	}
	rc, err := fsys.Open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &FileError{File: displayName(name), Err: ErrMissing}
		}
		return nil, &FileError{File: displayName(name), Err: err}
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", displayName(name), err)
	}
	if int64(len(data)) > max {
		return nil, tooLarge(name, max, tooBig)
	}
	return data, nil
}

// tooLarge is readCapped's error for a file longer than max.
func tooLarge(name string, max int64, tooBig error) error {
	if tooBig == ErrMismatch {
		return fileError(name, tooBig, "longer than the %d bytes declared", max)
	}
	return fileError(name, tooBig, "larger than the %d-byte cap", max)
}

// Versioned metadata file names.
func rootName(v int64) string     { return fmt.Sprintf("%d.root.json", v) }
func snapshotName(v int64) string { return fmt.Sprintf("%d.snapshot.json", v) }
func targetsName(v int64) string  { return fmt.Sprintf("%d.targets.json", v) }
func catalogName(hexSum string) string {
	return path.Join(TargetsDir, hexSum+"."+CatalogTarget)
}
