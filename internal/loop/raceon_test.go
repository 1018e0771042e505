//go:build race

package loop

// raceOn reports whether the tests run under the race detector (slow
// SQLite): long comparisons that only measure are skipped then.
const raceOn = true
