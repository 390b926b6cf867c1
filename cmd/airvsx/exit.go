package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/hostlaunch/host"
	"github.com/airvsx/airvsx/hostlaunch/install"
	"github.com/airvsx/airvsx/index/control"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/index/vsix"
	"github.com/airvsx/airvsx/transfer"
)

// The exit statuses of every airvsx command (docs/architecture.md).
const (
	exitOK     = 0 // success
	exitFailed = 1 // the check or operation failed: verification problems, policy refusals
	exitError  = 2 // usage or I/O errors: the command could not do its work
)

// errFailed marks a check that failed after its report was written; main
// prints no further message for it.
var errFailed = errors.New("check failed")

// errNoEntry marks a query the catalog has no answer for (ls ID): it
// exits 1, as grep does when nothing matches.
var errNoEntry = errors.New("no entry")

// usageError is a bad flag, argument or option.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// exitCode is the one place errors become exit statuses.
func exitCode(err error) int {
	var u *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &u):
		return exitError
	case errors.Is(err, errFailed), errors.Is(err, errNoEntry), errors.Is(err, vsix.ErrRejected),
		errors.Is(err, install.ErrRefused), errors.Is(err, install.ErrNotInstalled),
		errors.As(err, new(*host.CommandError)), errors.Is(err, host.ErrExited),
		errors.Is(err, transfer.ErrSource), errors.Is(err, transfer.ErrRefused), errors.Is(err, errTimedOut),
		errors.Is(err, control.ErrMalformed), errors.Is(err, errControlRefused), errors.Is(err, install.ErrControlRollback),
		errors.Is(err, transfer.ErrNotNextStep), errors.Is(err, transfer.ErrIncompleteBundle), errors.Is(err, transfer.ErrBundleSince),
		trustFailure(err):
		return exitFailed
	default:
		return exitError
	}
}

// trustFailure says whether err is the trust chain refusing what it read
// (a signature, an expiry, a rollback, a mismatch, a malformed file, a
// broken catalog chain): a check that failed, for every command alike.
func trustFailure(err error) bool {
	// A signing key the registry does not trust is the operator's
	// mistake, as a wrong password is: exit 2.
	if errors.Is(err, trust.ErrUntrustedKey) {
		return false
	}
	for _, e := range []error{trust.ErrSignature, trust.ErrExpired, trust.ErrRollback, trust.ErrMismatch, trust.ErrMalformed,
		trust.ErrCatalogRollback, trust.ErrCatalogFork, trust.ErrCatalogChain} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// report prints err to stderr unless it only says that a report already
// written to stdout found problems, and returns the exit status.
func report(stderr io.Writer, err error) int {
	code := exitCode(err)
	if err != nil && !errors.Is(err, errFailed) {
		fmt.Fprintf(stderr, "airvsx: %v\n", err)
		if errors.Is(err, store.ErrUnreachable) {
			fmt.Fprintln(stderr, "airvsx: nothing was read from it: check the place's address, that the registry is running and answers from here,\n"+
				"  the TLS flags (--ca-file for a private CA, --insecure for plain HTTP) and the credentials (docker login); then run the command again")
		}
	}
	return code
}

// namedArgs accepts exactly the positional arguments names names; a
// wrong count is a usage error that names them: "copy: DST is missing
// (want SRC and DST)".
func namedArgs(verb string, names ...string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) == len(names) {
			return nil
		}
		want := strings.Join(names, " and ")
		if len(args) < len(names) {
			missing := names[len(args):]
			is := "is"
			if len(missing) > 1 {
				is = "are"
			}
			if len(names) == 1 {
				return usagef("%s: %s is missing", verb, want)
			}
			return usagef("%s: %s %s missing (want %s)", verb, strings.Join(missing, " and "), is, want)
		}
		return usagef("%s: want %s, got %d arguments (%s): quote a path with spaces", verb, want, len(args), strings.Join(args, " "))
	}
}

// count is "1 entry", "2 entries": n with the noun in the right number.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// wordedError is err told in other words: its text is msg, and it is err
// for errors.Is and errors.As (the exit status).
type wordedError struct {
	msg string
	err error
}

func (e *wordedError) Error() string { return e.msg }
func (e *wordedError) Unwrap() error { return e.err }
