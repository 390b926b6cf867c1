// Package verify checks registries and single .vsix files offline:
// signatures, freshness, rollback, every byte, policy and dependency
// closure. It reads only, fails closed and reports every problem.
package verify
