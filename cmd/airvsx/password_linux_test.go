package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestNewKeyPasswordTerminal types the password on a real terminal when
// COSIGN_PASSWORD is not set.
func TestNewKeyPasswordTerminal(t *testing.T) {
	unset := func(string) (string, bool) { return "", false }
	for _, tc := range []struct {
		name    string
		typed   string
		want    string
		wantErr error
	}{
		{"same twice", "s3cret\ns3cret\n", "s3cret", nil},
		{"mismatch", "s3cret\nother\n", "", errPasswordMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			master, slave := openPTY(t)
			if _, err := master.WriteString(tc.typed); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			got, defaulted, err := newKeyPassword(unset, slave, &stderr)
			if err != tc.wantErr {
				t.Fatalf("newKeyPassword error = %v; want %v", err, tc.wantErr)
			}
			if string(got) != tc.want || defaulted {
				t.Errorf("newKeyPassword = %q, defaulted %v; want %q, false", got, defaulted, tc.want)
			}
			if n := strings.Count(stderr.String(), "Enter password for private key"); n != 2 {
				t.Errorf("wrote %d prompts; want 2: %q", n, stderr.String())
			}
		})
	}
}
