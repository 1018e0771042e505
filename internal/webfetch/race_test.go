//go:build race

package webfetch

// raceEnabled: the race detector's instrumentation changes what memory
// measures, so the memory target is not checked under it.
const raceEnabled = true
