package mirror

import (
	"context"

	"github.com/airvsx/airvsx/index/trust"
)

// Key is a sync's signing key, decrypted in the background while the
// sync opens its registry and plans (StartKey).
type Key struct {
	signer *trust.PendingSigner
	cancel context.CancelCauseFunc
}

// StartKey reads the private key file path now (a missing or unreadable
// file fails at once) and decrypts it with password in the background
// (scrypt: a few hundred milliseconds), as trust.StartSigner does. The
// context it returns is ctx, cancelled with the key's error as soon as
// the decryption fails: run the rest of the sync under it (opening the
// registry, Sync, which fetches nothing before the key is ready), and a
// wrong password stops the planning at once, before any download, under
// any load. Stop releases it.
func StartKey(ctx context.Context, path string, password []byte) (context.Context, *Key, error) {
	signer, err := trust.StartSigner(path, password)
	if err != nil {
		return ctx, nil, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		if _, err := signer.Wait(ctx); err != nil {
			cancel(err)
		}
	}()
	return ctx, &Key{signer: signer, cancel: cancel}, nil
}

// Signer is the key for Options.Signer and for a store that signs what it
// writes (a git store's commits, an OCI registry's cosign signatures). Its
// methods wait for the decryption.
func (k *Key) Signer() *trust.PendingSigner { return k.signer }

// Err is why a sync that failed with err stopped: the key's own error
// when the key turned out unusable (a wrong password; the sync's error
// then only says it was cancelled, or that signing failed), else err. A
// nil Key (no key: a dry run) returns err.
func (k *Key) Err(err error) error {
	if err == nil || k == nil {
		return err
	}
	if kerr := k.signer.Failed(); kerr != nil {
		return kerr
	}
	return err
}

// Stop releases the context StartKey returned (and the goroutine waiting
// for the key). A nil Key does nothing.
func (k *Key) Stop() {
	if k != nil {
		k.cancel(nil)
	}
}
