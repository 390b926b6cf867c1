package install

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/internal/atomicfile"
	"github.com/airvsx/airvsx/internal/safefile"
)

// SealKeyFile is the key that seals the records of installed.json: 32
// random bytes, mode 0600, in the launcher's state directory
// (DirOptions.StateDir), made by the first install, uninstall or other
// write of an extensions directory. No extension can read it: run
// refuses a workspace or storage that holds the state directory, and the
// sandbox never grants it.
const SealKeyFile = "install-seal.key"

// SealScheme starts every Record.Seal; 64 lower-case hex digits follow.
const SealScheme = "hmac-sha256:"

// sealKeyBytes is the size of the seal key.
const sealKeyBytes = 32

// sealContext starts every sealed message, so that the key's MACs are of
// installed.json records only.
const sealContext = "airvsx installed.json record\n"

// sealKey is the seal key, or where it would be.
type sealKey struct {
	path string
	key  []byte // nil: there is no key (a reader never makes one)
}

// sealKeyPath returns where the seal key of stateDir is ("":
// trust.DefaultStateDir()).
func sealKeyPath(stateDir string) (string, error) {
	if stateDir == "" {
		d, err := trust.DefaultStateDir()
		if err != nil {
			return "", fmt.Errorf("seal key: %w", err)
		}
		stateDir = d
	}
	return filepath.Join(stateDir, SealKeyFile), nil
}

// readSealKey reads the seal key of stateDir; a missing key is no error
// (its key is nil), a damaged one is.
func readSealKey(stateDir string) (*sealKey, error) {
	name, err := sealKeyPath(stateDir)
	if err != nil {
		return nil, err
	}
	b, err := safefile.ReadFile(name, sealKeyBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &sealKey{path: name}, nil
	case err == nil && len(b) != sealKeyBytes:
		err = fmt.Errorf("%s: %d bytes; a seal key has %d", name, len(b), sealKeyBytes)
	}
	if err != nil {
		return nil, fmt.Errorf("seal key: %w (if it is damaged, remove it and install every extension again)", err)
	}
	return &sealKey{path: name, key: b}, nil
}

// makeSealKey returns the seal key of stateDir, making it (and the state
// directory, 0700) when it is missing.
func makeSealKey(stateDir string) (*sealKey, error) {
	k, err := readSealKey(stateDir)
	if err != nil || k.key != nil {
		return k, err
	}
	if err := os.MkdirAll(filepath.Dir(k.path), 0o700); err != nil {
		return nil, fmt.Errorf("seal key: %w", err)
	}
	key := make([]byte, sealKeyBytes)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("seal key: %w", err)
	}
	// Exclusive: when another airvsx made one meanwhile, both use it.
	if err := atomicfile.WriteExclusive(k.path, key, 0o600); errors.Is(err, fs.ErrExist) {
		return readSealKey(stateDir)
	} else if err != nil {
		return nil, fmt.Errorf("seal key: %w", err)
	}
	k.key = key
	return k, nil
}

// seal returns r's seal: SealScheme and the HMAC-SHA256 under the key of
// sealContext and the record's JSON with Seal empty (so left out).
func (k *sealKey) seal(r Record) (string, error) {
	r.Seal = ""
	b, err := json.Marshal(r)
	if err != nil {
		return "", fmt.Errorf("seal %s: %w", r.String(), err)
	}
	m := hmac.New(sha256.New, k.key)
	m.Write([]byte(sealContext))
	m.Write(b)
	return SealScheme + hex.EncodeToString(m.Sum(nil)), nil
}

// sealAll seals every record of x.
func (k *sealKey) sealAll(x *Index) error {
	if k.key == nil {
		return errors.New("seal: no key") // writers always make one
	}
	for i := range x.Extensions {
		s, err := k.seal(x.Extensions[i])
		if err != nil {
			return err
		}
		x.Extensions[i].Seal = s
	}
	return nil
}

// unsealed returns "" when r's seal verifies, else why r is not trusted.
func (k *sealKey) unsealed(r *Record) string {
	var why string
	switch {
	case k.key == nil:
		why = "no seal key at " + k.path + ": installed by an older airvsx or as another user, or the key was removed"
	case r.Seal == "":
		why = "it has no seal: written by an older airvsx, or added by something else"
	default:
		want, err := k.seal(*r)
		if err == nil && hmac.Equal([]byte(want), []byte(r.Seal)) {
			return ""
		}
		why = "its seal does not match: changed by something else after airvsx wrote it, or copied from another machine"
	}
	return fmt.Sprintf("%s's record of %s is not sealed by airvsx install on this machine (%s): its grants are not trusted; install it again",
		IndexFile, r.String(), why)
}

// distrust disables every record of x whose seal does not verify, with
// the reason, and removes its grants (Capabilities, AllowedHosts,
// Programs), so that a later write, which seals every record, never
// makes a forged grant genuine. It returns a warning for each.
func (k *sealKey) distrust(x *Index) []string {
	var warnings []string
	for i := range x.Extensions {
		r := &x.Extensions[i]
		why := k.unsealed(r)
		if why == "" {
			continue
		}
		r.Capabilities, r.AllowedHosts, r.Programs = nil, nil, nil
		r.Enabled, r.Reason, r.Seal = false, why, ""
		warnings = append(warnings, fmt.Sprintf("%s disabled: %s", r.String(), why))
	}
	return warnings
}

// validSeal reports whether s is "" or SealScheme and 64 lower-case hex
// digits.
func validSeal(s string) bool {
	if s == "" {
		return true
	}
	h, ok := strings.CutPrefix(s, SealScheme)
	return ok && isHex64(h)
}
