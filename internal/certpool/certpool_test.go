package certpool

import (
	"crypto/x509"
	"encoding/pem"
	"testing"

	"github.com/airvsx/airvsx/testkit/certtest"
)

// TestWithSystem: a bundle's certificate is trusted on top of the
// system's roots; a bundle without a PEM certificate says so.
func TestWithSystem(t *testing.T) {
	der, _ := certtest.SelfSigned(t, "airvsx test CA", nil)
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	bundle := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})

	pool, ok := WithSystem(bundle)
	if !ok {
		t.Fatal("WithSystem: the bundle's certificate was not added")
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: pool}); err != nil {
		t.Errorf("a certificate of the bundle does not verify against the pool: %v", err)
	}
	for _, bad := range []string{"", "not PEM at all", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"} {
		if _, ok := WithSystem([]byte(bad)); ok {
			t.Errorf("WithSystem(%q) reports a certificate added", bad)
		}
	}
}
