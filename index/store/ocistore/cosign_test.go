package ocistore_test

import (
	"bytes"
	"crypto"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/sigstore/sigstore/pkg/signature/payload"

	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/ocistore"
	"github.com/airvsx/airvsx/index/trust"
)

// TestCosignSignature: with a signer, tagging an entry manifest writes a
// cosign simple-signing signature at sha256-<hex>.sig, and it checks the
// way cosign verify --key checks one (cosign itself is not installed
// here): the signature image's layers are payloads of media type
// application/vnd.dev.cosign.simplesigning.v1+json whose descriptor
// carries the base64 ECDSA signature in dev.cosignproject.cosign/signature;
// one of them must verify under the public key (PEM, SHA-256), and its
// payload's critical.image.docker-manifest-digest must be the manifest's
// digest, its type "cosign container image signature". Tagging again
// adds no second signature, and Tags does not list the signature tag.
func TestCosignSignature(t *testing.T) {
	r := startRegistry(t)
	pw := []byte("pw")
	priv, pubPEM, err := trust.GenerateKeyPair(pw)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := trust.ParseSigner("test.key", priv, pw)
	if err != nil {
		t.Fatal(err)
	}
	s := r.open(t, ocistore.Options{Signer: signer})
	ctx := t.Context()

	repo, mb := putEntryLayers(t, s)
	m, err := artifact.PutArtifact(ctx, s, mb)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := artifact.PutArtifact(ctx, s, mb); err != nil { // again: no second signature
		t.Fatal(err)
	}

	rpath := s.Place().Prefix + "/" + repo
	sigRef := "http://" + r.host + "/v2/" + rpath + "/manifests/" + ocistore.SignatureTag(m.Digest)
	if got, want := ocistore.SignatureTag(m.Digest), "sha256-"+m.Digest[len("sha256:"):]+".sig"; got != want {
		t.Fatalf("SignatureTag = %q; want %q", got, want)
	}
	raw := api(t, "GET", sigRef, nil, http.Header{"Accept": {artifact.MediaTypeManifest}}, 200)
	var sm struct {
		MediaType string `json:"mediaType"`
		Config    struct {
			MediaType string `json:"mediaType"`
		} `json:"config"`
		Layers []struct {
			MediaType   string            `json:"mediaType"`
			Digest      string            `json:"digest"`
			Size        int64             `json:"size"`
			Annotations map[string]string `json:"annotations"`
		} `json:"layers"`
	}
	if err := json.Unmarshal(raw, &sm); err != nil {
		t.Fatal(err)
	}
	if sm.MediaType != artifact.MediaTypeManifest || sm.Config.MediaType != "application/vnd.oci.image.config.v1+json" {
		t.Errorf("signature manifest media types %q, config %q; want cosign's", sm.MediaType, sm.Config.MediaType)
	}
	if len(sm.Layers) != 1 {
		t.Fatalf("signature image has %d layers; want 1 (tagging twice must not sign twice)", len(sm.Layers))
	}

	// As cosign: the public key from PEM, ECDSA with SHA-256.
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(pubPEM)
	if err != nil {
		t.Fatal(err)
	}
	ver, err := signature.LoadVerifier(pub, crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	l := sm.Layers[0]
	if l.MediaType != ocistore.SimpleSigningMediaType {
		t.Errorf("layer media type %q; want %q", l.MediaType, ocistore.SimpleSigningMediaType)
	}
	pl := readAll(t, s, repo, l.Digest, l.Size)
	sig, err := base64.StdEncoding.DecodeString(l.Annotations[ocistore.SignatureAnnotation])
	if err != nil {
		t.Fatalf("annotation %s: %v", ocistore.SignatureAnnotation, err)
	}
	if err := ver.VerifySignature(bytes.NewReader(sig), bytes.NewReader(pl)); err != nil {
		t.Fatalf("signature does not verify under the public key: %v", err)
	}
	var p payload.Cosign
	if err := json.Unmarshal(pl, &p); err != nil {
		t.Fatalf("payload: %v\n%s", err, pl)
	}
	if got := p.Image.DigestStr(); got != m.Digest {
		t.Errorf("payload docker-manifest-digest %s; want %s", got, m.Digest)
	}
	if got, want := p.Image.Repository.Name(), r.host+"/"+rpath; got != want {
		t.Errorf("payload docker-reference %s; want %s", got, want)
	}

	// Another key's signature does not verify: the check above means it.
	_, otherPub, err := trust.GenerateKeyPair(pw)
	if err != nil {
		t.Fatal(err)
	}
	ov, err := trust.ParseVerifier("other.pub", otherPub)
	if err != nil {
		t.Fatal(err)
	}
	if ov.VerifySignature(bytes.NewReader(sig), bytes.NewReader(pl)) == nil {
		t.Error("the signature verifies under another key")
	}

	tags, err := s.Tags(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if len(tags) != 1 || tags[0].Tag != m.Tag() {
		t.Errorf("Tags = %v; want only %s (not the signature tag)", tags, m.Tag())
	}
}
