package mirror

// Upstream's Ed25519 public keys: pinned by the previous catalog or fetched
// once per key id.

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"net/url"
	"path"
	"sync"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/vsix"
	"github.com/airvsx/airvsx/mirror/openvsx"
)

func keyIDFromURL(u string) string {
	if p, err := url.Parse(u); err == nil {
		return path.Base(p.Path)
	}
	return path.Base(u)
}

// keyError is a problem with an upstream key: a rejection, not a failure.
type keyError struct{ msg string }

func (e *keyError) Error() string { return e.msg }

// keyring holds upstream's public keys: those pinned in the previous
// catalog, and those fetched (once per key id) during this run.
type keyring struct {
	mu     sync.Mutex
	pinned map[string]string // key id → PEM, from the previous catalog
	keys   map[string]ed25519.PublicKey
	pems   map[string]string // every key used this run
}

func newKeyring(pinned []index.UpstreamKey) *keyring {
	k := &keyring{pinned: map[string]string{}, keys: map[string]ed25519.PublicKey{}, pems: map[string]string{}}
	for _, p := range pinned {
		k.pinned[p.ID] = p.PEM
	}
	return k
}

// get returns the key with the id, fetching it from keyURL the first time
// unless the previous catalog pinned it. A fetched key that differs from
// the pinned one is refused.
func (k *keyring) get(ctx context.Context, c *openvsx.Client, id, keyURL string) (ed25519.PublicKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if pub, ok := k.keys[id]; ok {
		return pub, nil
	}
	if id == "" || id == "." || id == "/" {
		return nil, &keyError{"upstream names no public key id"}
	}
	pemText, pinned := k.pinned[id]
	if !pinned {
		if keyURL == "" {
			return nil, &keyError{fmt.Sprintf("upstream key %q is unknown", id)}
		}
		b, err := c.Fetch(ctx, keyURL, 64<<10)
		if err != nil {
			return nil, fmt.Errorf("fetch upstream key %s: %w", id, err)
		}
		pemText = string(b)
	}
	pub, err := vsix.ParseUpstreamKey([]byte(pemText))
	if err != nil {
		return nil, &keyError{fmt.Sprintf("upstream key %q: %v", id, err)}
	}
	k.keys[id] = pub
	k.pems[id] = pemText
	return pub, nil
}

// used returns the keys used this run and those pinned before, for the
// new catalog: a key once pinned stays pinned.
func (k *keyring) used() []index.UpstreamKey {
	k.mu.Lock()
	defer k.mu.Unlock()
	all := map[string]string{}
	for id, p := range k.pinned {
		all[id] = p
	}
	for id, p := range k.pems {
		all[id] = p
	}
	var out []index.UpstreamKey
	for id, p := range all {
		out = append(out, index.UpstreamKey{ID: id, PEM: p})
	}
	return out
}
