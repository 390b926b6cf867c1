package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"
)

// passwordEnv is where keygen and sync take a key's password from, as
// cosign does.
const passwordEnv = "COSIGN_PASSWORD"

// errPasswordMismatch is a new password typed differently twice.
var errPasswordMismatch = errors.New("the two passwords do not match; nothing written")

// readLine reads one line typed by the user, without its line ending.
type readLine func() ([]byte, error)

// newKeyPassword returns the password to encrypt a new key with, the way
// cosign chooses it: $COSIGN_PASSWORD when set, even to "" (lookup says
// whether it is); else, when stdin is a terminal, typed twice at a
// prompt on stderr without echo. Without either it returns an empty
// password and defaulted=true, so that the caller warns once the key is
// written.
func newKeyPassword(lookup func(string) (string, bool), stdin io.Reader, stderr io.Writer) (pw []byte, defaulted bool, err error) {
	if v, ok := lookup(passwordEnv); ok {
		return []byte(v), false, nil
	}
	f, ok := stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, true, nil
	}
	pw, err = promptNewPassword(func() ([]byte, error) { return term.ReadPassword(int(f.Fd())) }, stderr)
	return pw, false, err
}

// promptNewPassword asks for a new password twice on w, reading each
// answer with read, and refuses two different answers.
func promptNewPassword(read readLine, w io.Writer) ([]byte, error) {
	ask := func(prompt string) ([]byte, error) {
		fmt.Fprint(w, prompt)
		b, err := read()
		fmt.Fprintln(w) // the terminal echoed no newline
		if err != nil {
			return nil, fmt.Errorf("read the password: %w", err)
		}
		return b, nil
	}
	pw, err := ask("Enter password for private key: ")
	if err != nil {
		return nil, err
	}
	again, err := ask("Enter password for private key again: ")
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(pw, again) {
		return nil, errPasswordMismatch
	}
	return pw, nil
}
