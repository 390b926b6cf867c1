package trust

import (
	"crypto"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sigstore/sigstore/pkg/signature"
)

func publicKey(t *testing.T, s signature.SignerVerifier) crypto.PublicKey {
	t.Helper()
	pub, err := s.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	return pub
}

func TestCheckSigningKey(t *testing.T) {
	f := newFixture(t)
	keyID, otherID := keyIDOf(t, f.key), keyIDOf(t, f.other)
	tests := []struct {
		name  string
		key   signature.SignerVerifier
		roles []string
		want  *KeyError // nil: accepted
	}{
		{name: "registry key, targets", key: f.key, roles: []string{"targets"}},
		{name: "registry key, every role", key: f.key, roles: []string{"root", "targets", "snapshot", "timestamp"}},
		{name: "other key", key: f.other, roles: []string{"targets"},
			want: &KeyError{Registry: "reg", KeyID: otherID, Role: "targets", RootVersion: 1, Trusted: []string{keyID}}},
		{name: "no such role", key: f.key, roles: []string{"delegated"},
			want: &KeyError{Registry: "reg", KeyID: keyID, Role: "delegated", RootVersion: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckSigningKey("reg", f.root, publicKey(t, tt.key), tt.roles...)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("CheckSigningKey(%v) = %v; want nil", tt.roles, err)
				}
				return
			}
			var ke *KeyError
			if !errors.As(err, &ke) || !errors.Is(err, ErrUntrustedKey) || !errors.Is(err, ErrSignature) {
				t.Fatalf("CheckSigningKey(%v) = %v; want a *KeyError wrapping ErrUntrustedKey and ErrSignature", tt.roles, err)
			}
			if diff := cmp.Diff(tt.want, ke); diff != "" {
				t.Errorf("CheckSigningKey(%v) (-want +got):\n%s", tt.roles, diff)
			}
		})
	}
}

func TestCheckPublisher(t *testing.T) {
	f := newFixture(t)
	dir := f.clone(t)
	if err := CheckPublisher(t.Context(), "reg", DirMetadata(dir), publicKey(t, f.key)); err != nil {
		t.Errorf("CheckPublisher(registry key) = %v; want nil", err)
	}
	err := CheckPublisher(t.Context(), "reg", DirMetadata(dir), publicKey(t, f.other))
	var ke *KeyError
	if !errors.As(err, &ke) || !slices.Equal(ke.Trusted, []string{keyIDOf(t, f.key)}) || ke.KeyID != keyIDOf(t, f.other) {
		t.Fatalf("CheckPublisher(other key) = %v; want a *KeyError naming both keys", err)
	}
	// A repository with no root yet: the first publish makes one from
	// any key.
	empty := t.TempDir()
	if err := CheckPublisher(t.Context(), "new", DirMetadata(empty), publicKey(t, f.other)); err != nil {
		t.Errorf("CheckPublisher(no root yet) = %v; want nil", err)
	}
	// Publish refuses the key CheckPublisher refused.
	if _, err := Publish(t.Context(), DirMetadata(dir), trustCatalog(t, 3), f.other, PublishOptions{Now: at(f.now)}); !errors.Is(err, ErrSignature) {
		t.Errorf("Publish(other key) = %v; want ErrSignature", err)
	}
}
