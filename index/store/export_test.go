package store

// SetTestHookBeforeRename makes every crash-safe write call f before its
// final rename; an error from f fails the write there. It returns a
// function that removes the hook.
func SetTestHookBeforeRename(f func(name string) error) (restore func()) {
	testHookBeforeRename = f
	return func() { testHookBeforeRename = nil }
}
