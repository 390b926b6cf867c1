package site

import "os"

// exchangeByRenames swaps a and b through a third name; b is absent
// between the first and the second rename.
func exchangeByRenames(a, b string) error {
	old := a + ".old"
	if err := os.Rename(b, old); err != nil {
		return err
	}
	if err := os.Rename(a, b); err != nil {
		os.Rename(old, b)
		return err
	}
	return os.Rename(old, a)
}
