package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lines reads the user's answers from r, one a line, as term.ReadPassword
// returns them: without the line ending.
func lines(r io.Reader) readLine {
	br := bufio.NewReader(r)
	return func() ([]byte, error) {
		s, err := br.ReadString('\n')
		if err != nil && (err != io.EOF || s == "") {
			return nil, err
		}
		return []byte(strings.TrimSuffix(s, "\n")), nil
	}
}

func TestPromptNewPassword(t *testing.T) {
	for _, tc := range []struct {
		name    string
		typed   string
		want    string
		wantErr error
		prompts int // prompts written
	}{
		{"same twice", "s3cret\ns3cret\n", "s3cret", nil, 2},
		{"empty twice", "\n\n", "", nil, 2},
		{"mismatch", "s3cret\nsecret\n", "", errPasswordMismatch, 2},
		{"end of input at the first", "", "", io.EOF, 1},
		{"end of input at the second", "s3cret\n", "", io.EOF, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w bytes.Buffer
			got, err := promptNewPassword(lines(strings.NewReader(tc.typed)), &w)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("promptNewPassword(%q) error = %v; want %v", tc.typed, err, tc.wantErr)
			}
			if err == nil && string(got) != tc.want {
				t.Errorf("promptNewPassword(%q) = %q; want %q", tc.typed, got, tc.want)
			}
			if n := strings.Count(w.String(), "Enter password for private key"); n != tc.prompts {
				t.Errorf("promptNewPassword(%q) wrote %d prompts; want %d:\n%s", tc.typed, n, tc.prompts, w.String())
			}
			if strings.Contains(w.String(), "s3cret") {
				t.Errorf("promptNewPassword wrote the password: %q", w.String())
			}
		})
	}
}

func TestNewKeyPassword(t *testing.T) {
	pipeR, pipeW, err := os.Pipe() // a file that is not a terminal
	if err != nil {
		t.Fatal(err)
	}
	defer pipeR.Close()
	defer pipeW.Close()
	devNull, err := os.Open(filepath.Join(os.DevNull))
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	env := func(v string, set bool) func(string) (string, bool) {
		return func(name string) (string, bool) {
			if name != passwordEnv {
				t.Errorf("looked up %s; want %s", name, passwordEnv)
			}
			return v, set
		}
	}
	for _, tc := range []struct {
		name          string
		lookup        func(string) (string, bool)
		stdin         io.Reader
		want          string
		wantDefaulted bool
	}{
		{"set", env("s3cret", true), strings.NewReader(""), "s3cret", false},
		{"set empty", env("", true), strings.NewReader(""), "", false},
		{"set, stdin a pipe", env("x", true), pipeR, "x", false},
		{"unset, stdin a reader", env("", false), strings.NewReader("typed\ntyped\n"), "", true},
		{"unset, stdin a pipe", env("", false), pipeR, "", true},
		{"unset, stdin /dev/null", env("", false), devNull, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			got, defaulted, err := newKeyPassword(tc.lookup, tc.stdin, &stderr)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want || defaulted != tc.wantDefaulted {
				t.Errorf("newKeyPassword = %q, defaulted %v; want %q, %v", got, defaulted, tc.want, tc.wantDefaulted)
			}
			if stderr.Len() != 0 {
				t.Errorf("newKeyPassword prompted without a terminal: %q", stderr.String())
			}
		})
	}
}
