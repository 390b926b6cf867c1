//go:build linux

package host

import (
	"io"
	"testing"
)

// TestConsumed: conn.consumed, which the heartbeat takes for a sign of
// life, grows only as the host end reads: not while it reads nothing,
// however much more is queued for it, and it grows while a long write
// (a reply the ping waits behind) is still going on.
func TestConsumed(t *testing.T) {
	launcher, hostEnd, err := ipcPair()
	if err != nil {
		t.Fatal(err)
	}
	defer launcher.Close()
	defer hostEnd.Close()
	c := &conn{f: launcher, pending: map[int64]*call{}}
	if n := c.consumed(); n != 0 {
		t.Fatalf("consumed before anything was written: %d; want 0", n)
	}
	// Small writes the host end does not read: queued, not consumed.
	for i := range 10 {
		if err := c.send(message{Method: "ping"}); err != nil {
			t.Fatal(err)
		}
		if n := c.consumed(); n > 0 {
			t.Fatalf("after %d unread messages consumed is %d; want none", i+1, n)
		}
	}
	sent := c.written.Load()
	if _, err := io.ReadFull(hostEnd, make([]byte, sent)); err != nil {
		t.Fatal(err)
	}
	if n := c.consumed(); n != sent {
		t.Fatalf("after the host end read all %d bytes consumed is %d", sent, n)
	}
	// A write far larger than the socket's buffer: it blocks until the
	// host end reads, and consumed grows with each read meanwhile.
	const big = 8 << 20
	done := make(chan error, 1)
	go func() {
		c.wmu.Lock()
		defer c.wmu.Unlock()
		_, err := c.Write(make([]byte, big))
		done <- err
	}()
	last, buf := c.consumed(), make([]byte, 256<<10)
	grew := 0 // while the write was still going on
	var werr error
	finished := false
	for got := 0; got < big; {
		n, err := hostEnd.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got += n
		if !finished {
			select {
			case werr = <-done:
				finished = true
			default:
			}
		}
		if now := c.consumed(); now > last && !finished {
			grew++
			last = now
		}
	}
	if !finished {
		werr = <-done
	}
	if werr != nil {
		t.Fatal(werr)
	}
	if grew < 10 {
		t.Errorf("consumed grew %d times while the 8 MiB write went on, read in 256 KiB reads; want it to grow as they are read", grew)
	}
	if n := c.consumed(); n != sent+big {
		t.Errorf("consumed at the end: %d; want %d", n, sent+big)
	}
}
