package tui

import "testing"

// TestReleaseOpenPeakOnlyAfterALongHistory: a long session's open is
// followed by a collection that returns its peak; a short one's is not.
func TestReleaseOpenPeakOnlyAfterALongHistory(t *testing.T) {
	if releaseOpenPeak(0) != nil || releaseOpenPeak(releaseOpenPeakMinEntries-1) != nil {
		t.Error("a short history's open asks for a collection")
	}
	cmd := releaseOpenPeak(10000)
	if cmd == nil {
		t.Fatal("a 10,000-entry history's open does not release its peak")
	}
	if msg := cmd(); msg != nil {
		t.Errorf("the release returned %T, want no message", msg)
	}
}
