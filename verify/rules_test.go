package verify

import "testing"

// TestCopyRepairs: the rules whose problems a copy --repair fixes are those
// about the stored bytes of the registry, not its trust, its catalog or
// its policy.
func TestCopyRepairs(t *testing.T) {
	for _, tc := range []struct {
		rule Rule
		want bool
	}{
		{RuleBlobDigest, true},
		{RuleBlobSize, true},
		{RuleBlobMissing, true},
		{RuleManifestMismatch, true},
		{RuleLayoutInvalid, true},
		{RuleTagMismatch, true},
		{RuleTrustExpired, false},
		{RuleTrustSignature, false},
		{RuleCatalogRollback, false},
		{RulePolicyDenied, false},
		{RuleExtraFile, false},
		{RuleOrphanBlob, false},
	} {
		if got := CopyRepairs(tc.rule); got != tc.want {
			t.Errorf("CopyRepairs(%s) = %v; want %v", tc.rule, got, tc.want)
		}
	}
}
