//go:build linux

package snapshot

import (
	"runtime"
	"testing"
)

// resetEntryFree empties the free entries (tests).
func resetEntryFree(t *testing.T) {
	t.Helper()
	entryFree.mu.Lock()
	defer entryFree.mu.Unlock()
	for i := range entryFree.lists {
		entryFree.lists[i] = nil
	}
	entryFree.bytes = 0
}

// A released entry's buffer is the next one of its class, also after a
// collection (a sync.Pool's are dropped then: a first snapshot made its
// buffers again and again), and one taken serves any size of its class.
func TestEntryFreeReusesAcrossCollections(t *testing.T) {
	resetEntryFree(t)
	t.Cleanup(func() { resetEntryFree(t) })
	e := getEntry(10_000)
	if c := cap(e.buf); c < framedLen(10_001) || c&(c-1) != 0 {
		t.Fatalf("a 10,000-byte file's entry has %d bytes", c)
	}
	buf := &e.buf[0]
	putEntry(e)
	runtime.GC()
	runtime.GC()
	again := getEntry(12_000) // the same class (16 KiB)
	if &again.buf[0] != buf {
		t.Fatal("the released buffer was not reused after a collection")
	}
	if big := getEntry(8 << 20); big.buf != nil {
		t.Fatalf("a file over the largest class got a class's buffer (%d bytes)", cap(big.buf))
	}
}

// What is kept free is bounded by entryFreeMax.
func TestEntryFreeIsBounded(t *testing.T) {
	resetEntryFree(t)
	t.Cleanup(func() { resetEntryFree(t) })
	var es []*fileEntry
	for range 64 {
		es = append(es, getEntry(200_000)) // 256 KiB each
	}
	for _, e := range es {
		putEntry(e)
	}
	entryFree.mu.Lock()
	kept := entryFree.bytes
	entryFree.mu.Unlock()
	if kept > entryFreeMax || kept < entryFreeMax/2 {
		t.Fatalf("%d bytes kept free of 64 released 256 KiB entries, bound %d", kept, entryFreeMax)
	}
}

// Once a first snapshot's files are read, its kept buffers are left to
// the collector, not held through the rest of the update and after it.
func TestDropFreeEntriesKeepsNone(t *testing.T) {
	resetEntryFree(t)
	t.Cleanup(func() { resetEntryFree(t) })
	e := getEntry(10_000)
	buf := &e.buf[0]
	putEntry(e)
	dropFreeEntries()
	if entryFree.bytes != 0 {
		t.Fatalf("%d bytes kept after the drop", entryFree.bytes)
	}
	if again := getEntry(10_000); &again.buf[0] == buf {
		t.Fatal("a dropped buffer was handed out again")
	}
}

// A file whose class has no free entry takes one of the next class up
// (twice its size), not a new buffer; never one two classes up.
func TestEntryFreeTakesTheNextClassUp(t *testing.T) {
	resetEntryFree(t)
	t.Cleanup(func() { resetEntryFree(t) })
	e16, e64 := getEntry(12_000), getEntry(40_000) // 16 KiB, 64 KiB
	b16, b64 := &e16.buf[0], &e64.buf[0]
	putEntry(e16)
	putEntry(e64)
	if e := getEntry(6_000); &e.buf[0] != b16 { // 8 KiB class: the 16 KiB one
		t.Fatalf("an 8 KiB file got a %d-byte buffer, not the free 16 KiB one", cap(e.buf))
	}
	if e := getEntry(14_000); cap(e.buf) != 16<<10 || &e.buf[0] == b64 { // 16 KiB class: none free; 64 KiB is two up
		t.Fatalf("a 16 KiB file got %d bytes (the 64 KiB buffer: %v)", cap(e.buf), &e.buf[0] == b64)
	}
}
