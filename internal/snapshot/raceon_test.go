//go:build race

package snapshot

// raceOn: see raceoff_test.go.
const raceOn = true
