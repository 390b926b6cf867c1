// Package certpool makes the certificate pool a TLS client verifies
// servers with when the operator names a CA bundle (--ca-file): the
// system's roots plus the bundle's certificates.
package certpool

import "crypto/x509"

// WithSystem returns the system's roots (an empty pool where the system
// has none) plus the PEM certificates in bundle, and false when bundle
// holds no PEM certificate.
func WithSystem(bundle []byte) (*x509.CertPool, bool) {
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	return pool, pool.AppendCertsFromPEM(bundle)
}
