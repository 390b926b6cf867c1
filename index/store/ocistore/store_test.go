package ocistore_test

import (
	"testing"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/ocistore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/testkit/filetest"
)

// TestConformance runs the store conformance suite against a distribution
// registry on loopback; the verify-on-read check damages a blob's file in
// the registry's own storage, behind the store's back.
func TestConformance(t *testing.T) {
	r := startRegistry(t)
	storetest.Run(t, func(t *testing.T) store.Store { return r.open(t, ocistore.Options{}) }, storetest.Options{
		Tamper: func(t *testing.T, s store.Store, repo, digest string) {
			filetest.FlipByte(t, r.blobData(digest))
		},
	})
}
