package ocistore

import (
	"bytes"
	"context"
	"crypto"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/sigstore/sigstore/pkg/signature/payload"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
)

// What cosign's simple-signing signatures are made of.
const (
	// SimpleSigningMediaType is the media type of a signature's payload
	// layer.
	SimpleSigningMediaType = "application/vnd.dev.cosign.simplesigning.v1+json"
	// SignatureAnnotation holds the base64 signature of the payload on the
	// payload layer's descriptor.
	SignatureAnnotation = "dev.cosignproject.cosign/signature"

	ociConfigMediaType = "application/vnd.oci.image.config.v1+json"
)

// SignatureTag is the tag cosign looks for the signatures of a manifest
// at: "sha256-<hex>.sig".
func SignatureTag(digest string) string {
	return strings.Replace(digest, ":", "-", 1) + ".sig"
}

// SignaturePayload returns the simple-signing payload that signs the
// manifest digest in the registry repository ref ("HOST/PREFIX/ns/name"),
// as cosign writes it.
func SignaturePayload(ref, digest string, opts ...name.Option) ([]byte, error) {
	d, err := name.NewDigest(ref+"@"+digest, opts...)
	if err != nil {
		return nil, err
	}
	return json.Marshal(payload.Cosign{Image: d})
}

// sign adds a cosign signature of the manifest digest to rpath's
// signature image for it (SignatureTag): the payload as a layer, the
// signature in its annotation. Layers already there are kept; when one
// already carries this payload with a signature the signer's key
// verifies, nothing is written.
func (s *ociStore) sign(ctx context.Context, rpath, digest string) error {
	var nopts []name.Option
	if s.opts.Insecure {
		nopts = append(nopts, name.Insecure)
	}
	pl, err := SignaturePayload(s.reg.RegistryStr()+"/"+rpath, digest, nopts...)
	if err != nil {
		return err
	}
	pd := index.DigestBytes(pl)
	tag := SignatureTag(digest)
	old, err := s.readFileSet(ctx, rpath, tag)
	if err != nil {
		return err
	}
	pub, err := s.opts.Signer.PublicKey()
	if err != nil {
		return err
	}
	ver, err := signature.LoadVerifier(pub, crypto.SHA256)
	if err != nil {
		return err
	}
	m := newFileSet("")
	if old != nil {
		m.Layers = old.Layers
		for _, l := range old.Layers {
			sig, err := base64.StdEncoding.DecodeString(l.Annotations[SignatureAnnotation])
			if err == nil && l.Digest == pd && ver.VerifySignature(bytes.NewReader(sig), bytes.NewReader(pl)) == nil {
				return nil
			}
		}
	}
	sig, err := s.opts.Signer.SignMessage(bytes.NewReader(pl))
	if err != nil {
		return err
	}
	if err := s.putBlob(ctx, rpath, pd, int64(len(pl)), store.BytesContent(pl)); err != nil {
		return fmt.Errorf("payload: %w", err)
	}
	m.Layers = append(m.Layers, fileDesc{MediaType: SimpleSigningMediaType, Digest: pd, Size: int64(len(pl)),
		Annotations: map[string]string{SignatureAnnotation: base64.StdEncoding.EncodeToString(sig)}})
	// The config is an image configuration whose diff IDs are the
	// layers' digests (the payloads are not compressed), as in the
	// signature images cosign makes.
	diffIDs := make([]string, len(m.Layers))
	for i, l := range m.Layers {
		diffIDs[i] = l.Digest
	}
	cfg, err := json.Marshal(map[string]any{
		"architecture": "", "os": "", "config": map[string]any{},
		"rootfs": map[string]any{"type": "layers", "diff_ids": diffIDs},
	})
	if err != nil {
		return err
	}
	cd := index.DigestBytes(cfg)
	if err := s.putBlob(ctx, rpath, cd, int64(len(cfg)), store.BytesContent(cfg)); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	m.Config = fileDesc{MediaType: ociConfigMediaType, Digest: cd, Size: int64(len(cfg))}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return s.putManifest(ctx, rpath, tag, artifact.MediaTypeManifest, b)
}
