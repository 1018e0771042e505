//go:build !race

package snapshot

// raceOn reports whether the tests run under the race detector, whose
// runtime inflates the allocations and the RSS the memory tests measure.
const raceOn = false
