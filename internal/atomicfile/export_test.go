package atomicfile

// SetTestHook makes every step that makes a write durable or visible
// call f first: "sync file", "rename", "link", "sync dir". It returns a
// function that removes the hook.
func SetTestHook(f func(event, name string)) (restore func()) {
	testHook = f
	return func() { testHook = nil }
}
