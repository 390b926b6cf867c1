//go:build !linux

package site

// exchange swaps the directories a and b with three renames: b is missing
// for a moment between the second and the first.
func exchange(a, b string) error { return exchangeByRenames(a, b) }
