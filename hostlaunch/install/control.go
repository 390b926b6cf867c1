package install

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/control"
	"github.com/airvsx/airvsx/internal/atomicfile"
	"github.com/airvsx/airvsx/internal/safefile"
	"github.com/airvsx/airvsx/internal/strictjson"
)

// ControlFile is the extension control lists (kill lists) an extensions
// directory enforces, in the directory: those of the newest catalog
// installed from, the registry and the anchor to read newer ones from,
// sealed like installed.json's records.
const ControlFile = "control.json"

// maxControlStateBytes caps ControlFile.
const maxControlStateBytes = 4*index.MaxControlBytes + 1<<20

// controlSealContext starts the sealed message of a ControlState.
const controlSealContext = "airvsx control.json\n"

// ControlState is what ControlFile holds.
type ControlState struct {
	// Registry is the registry the lists came from (an absolute path for
	// a directory), and RootJSON or KeyPEM the anchor it was verified
	// from, so that run and list can read a newer catalog's lists there.
	Registry string `json:"registry"`
	RootJSON []byte `json:"rootJson,omitempty"`
	KeyPEM   string `json:"keyPem,omitempty"`
	// Serial and CatalogDigest are the catalog the lists were read from.
	Serial        int64  `json:"serial"`
	CatalogDigest string `json:"catalogDigest"`
	// Lists are the lists, byte for byte, each with its signed ref.
	Lists []ControlList `json:"lists"`
	// Allow are the extensions installed under the policy's
	// control.allow, each with the list's verdict and the policy's
	// reason: run starts them all the same, and list shows them.
	Allow []ControlOverride `json:"allow,omitempty"`
	Seal  string            `json:"seal,omitempty"`
}

// Allowed returns the override recorded for id, if any.
func (c *ControlState) Allowed(id index.ID) (ControlOverride, bool) {
	if c != nil {
		for _, a := range c.Allow {
			if strings.EqualFold(a.ID, id.String()) {
				return a, true
			}
		}
	}
	return ControlOverride{}, false
}

// withAllow returns c with the overrides add recorded (one per ID, the
// newest kept).
func (c ControlState) withAllow(add []ControlOverride) ControlState {
	out := slices.Clone(c.Allow)
	for _, a := range add {
		out = slices.DeleteFunc(out, func(b ControlOverride) bool { return strings.EqualFold(a.ID, b.ID) })
		out = append(out, a)
	}
	c.Allow = out
	return c
}

// ControlList is one list of a ControlState.
type ControlList struct {
	Ref  index.ControlRef `json:"ref"`
	Data []byte           `json:"data"`
}

// Set parses the lists (each checked against its ref's digest) into a
// control.Set.
func (c *ControlState) Set() (*control.Set, error) {
	if c == nil {
		return control.NewSet(), nil
	}
	pinned := make([]control.Pinned, len(c.Lists))
	for i, l := range c.Lists {
		pinned[i] = control.Pinned{Ref: l.Ref, Data: l.Data}
	}
	set, err := control.Load(pinned...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ControlFile, err)
	}
	return set, nil
}

// Refs returns the lists' refs.
func (c *ControlState) Refs() []index.ControlRef {
	if c == nil {
		return nil
	}
	refs := make([]index.ControlRef, len(c.Lists))
	for i, l := range c.Lists {
		refs[i] = l.Ref
	}
	return refs
}

// ErrControlRollback is wrapped when a registry's control lists are older
// than those an extensions directory has seen.
var ErrControlRollback = errors.New("control list rolled back")

// CheckNewer refuses next when one of its lists is older than the list of
// the same origin in c (fetched earlier), or when it drops a list c has:
// an older list never replaces a newer one.
func (c *ControlState) CheckNewer(next *ControlState) error {
	if c == nil {
		return nil
	}
	if was, now, ok := control.Older(c.Refs(), next.Refs()); ok {
		return fmt.Errorf("%w: the registry's control list %s was fetched %s, before the one this extensions directory enforces (%s, catalog serial %d): get the current registry",
			ErrControlRollback, now.Origin, now.FetchedAt.Format("2006-01-02T15:04:05Z"), was.FetchedAt.Format("2006-01-02T15:04:05Z"), c.Serial)
	}
	return nil
}

// seal returns c's seal under k.
func (k *sealKey) sealControl(c ControlState) (string, error) {
	c.Seal = ""
	b, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, k.key)
	m.Write([]byte(controlSealContext))
	m.Write(b)
	return SealScheme + hex.EncodeToString(m.Sum(nil)), nil
}

// readControl reads DIR/control.json: nil when there is none; an error
// when it is damaged or its seal does not verify (something else wrote
// it).
func readControl(dir string, k *sealKey) (*ControlState, error) {
	name := filepath.Join(dir, ControlFile)
	data, err := safefile.ReadFile(name, maxControlStateBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var c ControlState
	if err := strictjson.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s is damaged: %w (remove it and install again from the registry)", name, err)
	}
	if k == nil || k.key == nil {
		return nil, fmt.Errorf("%s: no seal key to check it with: install again from the registry", name)
	}
	want, err := k.sealControl(c)
	if err != nil || !hmac.Equal([]byte(want), []byte(c.Seal)) {
		return nil, fmt.Errorf("%s is not sealed by airvsx on this machine: remove it and install again from the registry", name)
	}
	if _, err := c.Set(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &c, nil
}

// writeControl replaces DIR/control.json with c, sealed.
func (d *extDir) writeControl(c ControlState) error {
	s, err := d.key.sealControl(c)
	if err != nil {
		return err
	}
	c.Seal = s
	data, err := strictjson.Marshal(&c)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(d.path, ControlFile), data, 0o644)
}

// LoadControl reads the control lists the extensions directory dir
// enforces (nil: none; it was never installed into from a registry that
// carries one).
func LoadControl(dir string, opts DirOptions) (*ControlState, error) {
	key, err := readSealKey(opts.StateDir)
	if err != nil {
		return nil, err
	}
	return readControl(dir, key)
}

// UpdateControl makes next the control lists dir enforces, unless it is
// older than those it enforces (ErrControlRollback) or the same catalog's.
// It reports whether it replaced them.
func UpdateControl(ctx context.Context, dir string, next ControlState, opts DirOptions) (bool, error) {
	d, err := openForWrite(ctx, dir, false, opts)
	if err != nil {
		return false, err
	}
	defer d.close()
	cur, err := readControl(dir, d.key)
	if err != nil {
		// A damaged or unsealed file is replaced by the verified lists.
		opts.Logger.Warn("replacing the control lists file", "err", err)
		cur = nil
	}
	if cur != nil {
		next.Allow = cur.Allow // the overrides stay until an install changes them
	}
	if cur != nil && cur.CatalogDigest == next.CatalogDigest && bytes.Equal(mustJSON(cur.Refs()), mustJSON(next.Refs())) {
		return false, nil
	}
	if err := cur.CheckNewer(&next); err != nil {
		return false, err
	}
	return true, d.writeControl(next)
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
