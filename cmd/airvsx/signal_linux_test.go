package main

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestSignalAtPasswordPrompt sends SIGTERM to a keygen waiting for its
// password on a terminal, a call no context reaches: it still ends within
// 2 s, and the terminal echoes again.
func TestSignalAtPasswordPrompt(t *testing.T) {
	master, slave := openPTY(t)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cmd := airvsxCmd(ctx, t, "keygen", "--out", filepath.Join(t.TempDir(), "k"))
	env := cmd.Env[:0:0]
	for _, kv := range cmd.Env {
		if !strings.HasPrefix(kv, "COSIGN_PASSWORD=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	cmd.Stdin = slave
	stderr, done := startCmd(t, cmd)
	// Wait for the prompt: echo is off once it is shown.
	deadline := time.Now().Add(10 * time.Second)
	for {
		tio, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		if tio.Lflag&unix.ECHO == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no password prompt within 10 s: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("keygen exited 0 after SIGTERM; want a failure")
		}
	case <-time.After(2 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("keygen still waits for its password 2 s after SIGTERM")
	}
	tio, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if tio.Lflag&unix.ECHO == 0 {
		t.Error("the terminal does not echo after keygen stopped")
	}
	_ = master
}
