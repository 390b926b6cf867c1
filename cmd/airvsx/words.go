package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/airvsx/airvsx/index/store/ocistore"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/transfer"
)

// The library packages return typed errors that carry the facts (which
// file, which option would change the outcome); the words that name the
// CLI's flags are here, where the flags are.

// pinnedRootName names the root --root pinned in messages of the trust
// chain (trust.Anchor.RootName).
const pinnedRootName = "the pinned root (--root)"

// anchorWords tells a *trust.AnchorError in err with the flag that named
// the file (--root or --key); other errors are returned as they are.
func anchorWords(err error) error {
	var ae *trust.AnchorError
	if !errors.As(err, &ae) {
		return err
	}
	var msg string
	switch {
	case ae.Root && ae.NotRoot != "":
		msg = fmt.Sprintf("--root %s is not a TUF root.json (%s): give the root the registry's publisher handed over (its metadata/1.root.json), or the publisher's key with --key PREFIX.pub", ae.Path, ae.NotRoot)
	case ae.Root:
		msg = "--root: " + ae.Err.Error()
	default:
		msg = "--key: " + ae.Err.Error()
	}
	return &wordedError{msg: msg, err: err}
}

// copyWords tells a *transfer.OverwriteError in err with the flag that
// overrides it (--force); other errors are returned as they are.
func copyWords(err error) error {
	var oe *transfer.OverwriteError
	if !errors.As(err, &oe) {
		return err
	}
	return &wordedError{msg: fmt.Sprintf("copy: %s; pass --force to overwrite it: %v", strings.Join(oe.Refusals, "; "), transfer.ErrRefused), err: err}
}

// insecureRemoteWords tells a *ocistore.InsecureRemoteError in err with
// the flag that allows it (--allow-insecure-remote); other errors are
// returned as they are.
func insecureRemoteWords(err error) error {
	var ie *ocistore.InsecureRemoteError
	if !errors.As(err, &ie) {
		return err
	}
	return &wordedError{msg: fmt.Sprintf("open %s: %s is not a loopback or private address; plain HTTP to it needs --allow-insecure-remote too: %v", ie.Place, ie.Host, ocistore.ErrInsecureRemote), err: err}
}
