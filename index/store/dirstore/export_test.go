package dirstore

// SetTestHookBeforeRename makes every crash-safe write call f before its
// final rename; an error from f fails the write there. It returns a
// function that removes the hook.
func SetTestHookBeforeRename(f func(name string) error) (restore func()) {
	testHookBeforeRename = f
	return func() { testHookBeforeRename = nil }
}

// SetTestHookSyncDir makes every directory fsync call f with the
// directory's name first. It returns a function that removes the hook.
func SetTestHookSyncDir(f func(dir string)) (restore func()) {
	testHookSyncDir = f
	return func() { testHookSyncDir = nil }
}
