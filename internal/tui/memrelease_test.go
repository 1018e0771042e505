package tui

import (
	"runtime/metrics"
	"testing"
	"time"
)

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

// openFollowUp keeps the test's allocations reachable until dropped.
var openFollowUp [][]byte

// TestReleaseOpenPeakReturnsWhatTheOpensFollowUpFrees: what the chat
// allocates and frees after the open's collection (the tail's Markdown
// renders, the first frames, the environment's gathering) is given back
// too once the process has gone quiet, not held as RSS for minutes.
func TestReleaseOpenPeakReturnsWhatTheOpensFollowUpFrees(t *testing.T) {
	first := make(chan struct{})
	madeAndDropped := make(chan struct{})
	old := releasedOpenPeak
	t.Cleanup(func() { releasedOpenPeak = old })
	done := make(chan struct{})
	releasedOpenPeak = func(n int) {
		switch n {
		case 1:
			close(first)
			<-madeAndDropped
		case 2:
			close(done)
		}
	}
	go releaseOpenPeak(10000)()
	<-first
	before := heapHeld()
	for range 256 { // 32 MiB made after the first collection, then dropped
		openFollowUp = append(openFollowUp, make([]byte, 128<<10))
	}
	openFollowUp = nil
	close(madeAndDropped)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the release did not finish")
	}
	if grew := heapHeld() - before; grew > 8<<20 {
		t.Errorf("the heap holds %.1f MiB more than after the open's collection: what the open's follow-up freed is not given back", float64(grew)/(1<<20))
	}
}

// heapHeld is the Go heap's memory not returned to the system: live and
// dead objects, free pages kept.
func heapHeld() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}, {Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(s)
	var n int64
	for _, x := range s {
		n += int64(x.Value.Uint64())
	}
	return n
}
