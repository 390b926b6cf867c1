package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY returns both ends of a new pseudo-terminal, or skips the test.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("pseudo-terminal number: %v", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { slave.Close() })
	return master, slave
}

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
