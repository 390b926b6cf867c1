//go:build race

package sandbox

// raceEnabled: the test binary runs under the race detector, whose shadow
// memory multiplies what the process holds.
const raceEnabled = true
