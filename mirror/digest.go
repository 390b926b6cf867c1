package mirror

// Hashing while downloading: a package's destination hashes every byte as
// it is written, so neither its sha256 nor upstream's signature check needs
// a second read of the file.

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"

	"github.com/airvsx/airvsx/index/vsix"
)

// digestFile is a temp file that hashes what is written to it: the
// package's sha256 and, when upstream signed it, the streaming Ed25519
// check of that signature. openvsx.Client.Download rewinds it before each retry
// (Seek to 0, then Truncate to 0), which starts the hashes over too, so
// they always cover exactly the bytes in the file. It can only start over:
// resuming mid-file is refused.
type digestFile struct {
	f   *os.File
	sha hash.Hash
	n   int64
	pub ed25519.PublicKey
	sig []byte                 // nil: no signature to check
	ver *vsix.UpstreamVerifier // nil when sig is
	// gate, when set, is called before the first byte is written (to
	// wait for a transfer slot); an error fails the write.
	gate func() error
	// flight, when set, counts the bytes written for the progress.
	flight *flight
}

// newDigestFile hashes what is written to f, which must be empty, and
// checks sig by pub over it when sig is not nil.
func newDigestFile(f *os.File, pub ed25519.PublicKey, sig []byte) *digestFile {
	d := &digestFile{f: f, sha: sha256.New(), pub: pub, sig: sig}
	d.reset()
	return d
}

func (d *digestFile) reset() {
	d.sha.Reset()
	d.n = 0
	d.flight.restart()
	if d.sig != nil {
		d.ver = vsix.NewUpstreamVerifier(d.pub, d.sig)
	}
}

// Write writes p to the file and feeds what was written to the hashes.
func (d *digestFile) Write(p []byte) (int, error) {
	if d.gate != nil {
		if err := d.gate(); err != nil {
			return 0, err
		}
		d.gate = nil
	}
	n, err := d.f.Write(p)
	d.sha.Write(p[:n])
	if d.ver != nil {
		d.ver.Write(p[:n])
	}
	d.n += int64(n)
	d.flight.received(n)
	return n, err
}

// Seek rewinds the file to its start and starts the hashes over; any
// other offset is refused.
func (d *digestFile) Seek(offset int64, whence int) (int64, error) {
	if offset != 0 || whence != io.SeekStart {
		return 0, fmt.Errorf("%s: a download restarts from its first byte only", d.f.Name())
	}
	if _, err := d.f.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	d.reset()
	return 0, nil
}

// Truncate empties the file, rewinds it and starts the hashes over; any
// other size is refused.
func (d *digestFile) Truncate(size int64) error {
	if size != 0 {
		return fmt.Errorf("%s: a download restarts from its first byte only", d.f.Name())
	}
	if err := d.f.Truncate(0); err != nil {
		return err
	}
	_, err := d.Seek(0, io.SeekStart)
	return err
}

// size is how many bytes were written since the last restart.
func (d *digestFile) size() int64 { return d.n }

// sum is the lowercase hex sha256 of what was written since the last
// restart.
func (d *digestFile) sum() string { return hex.EncodeToString(d.sha.Sum(nil)) }

// signatureOK reports whether the signature verifies over what was
// written since the last restart; false when there is no signature.
func (d *digestFile) signatureOK() bool { return d.ver != nil && d.ver.Verify() }
