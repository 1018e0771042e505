//go:build linux

package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// resetEntryFree empties the free entries and counts a reader in until
// the test ends (tests).
func resetEntryFree(t *testing.T) {
	t.Helper()
	entryFree.mu.Lock()
	for i := range entryFree.lists {
		entryFree.lists[i] = nil
	}
	entryFree.bytes = 0
	entryFree.mu.Unlock()
	t.Cleanup(beginEntryReads())
}

// A released entry's buffer is the next one of its class, also after a
// collection (a sync.Pool's are dropped then: a first snapshot made its
// buffers again and again), and one taken serves any size of its class.
func TestEntryFreeReusesAcrossCollections(t *testing.T) {
	resetEntryFree(t)
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
// the collector, not held through the rest of the update and after it,
// and what is released after (the pack queues') is not kept either.
func TestDropFreeEntriesKeepsNone(t *testing.T) {
	entryFree.mu.Lock()
	entryFree.lists, entryFree.bytes = [16][]*fileEntry{}, 0
	entryFree.mu.Unlock()
	end := beginEntryReads()
	e, late := getEntry(10_000), getEntry(10_000)
	buf := &e.buf[0]
	putEntry(e)
	end()
	putEntry(late) // a pack queue's, released after the reads
	if entryFree.bytes != 0 {
		t.Fatalf("%d bytes kept after the reads ended", entryFree.bytes)
	}
	if again := getEntry(10_000); &again.buf[0] == buf {
		t.Fatal("a dropped buffer was handed out again")
	}
}

// A file whose class has no free entry takes one of the next class up
// (twice its size), not a new buffer; never one two classes up.
func TestEntryFreeTakesTheNextClassUp(t *testing.T) {
	resetEntryFree(t)
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

// After a first snapshot no entry buffer is kept free: the entries still
// queued in the packs' pipes (packpipe.go, up to pipeBudget) when the
// reads end are released after, and were kept again (found by review).
func TestNoEntriesKeptAfterAFirstSnapshot(t *testing.T) {
	needGit(t)
	entryFree.mu.Lock()
	entryFree.lists, entryFree.bytes = [16][]*fileEntry{}, 0
	entryFree.mu.Unlock()
	ctx := context.Background()
	work := t.TempDir()
	body := make([]byte, 60_000)
	for i := range 400 {
		d := filepath.Join(work, fmt.Sprintf("d%02d", i%20))
		os.MkdirAll(d, 0o755)
		copy(body, fmt.Sprintf("file %d\n", i))
		for j := 16; j < len(body); j++ {
			body[j] = byte('a' + (i*7+j)%26)
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%03d", i)), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(ctx, t.TempDir(), work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Take(ctx, "ses1", "first"); err != nil {
		t.Fatal(err)
	}
	entryFree.mu.Lock()
	kept := entryFree.bytes
	entryFree.mu.Unlock()
	if kept != 0 {
		t.Fatalf("%d bytes of entry buffers kept free after the first snapshot", kept)
	}
}

// An entry kept for reuse keeps no deflate buffer (a secret's body,
// fileEntry.deflate): entryFree.bytes counts only the entries' own
// buffers, so one kept would be held beyond entryFreeMax.
func TestPutEntryKeepsNoDeflateBuffer(t *testing.T) {
	resetEntryFree(t)
	e := getEntry(10_000)
	e.gather.Grow(1 << 20)
	putEntry(e)
	if again := getEntry(10_000); again != e || again.gather.Cap() != 0 {
		t.Fatalf("the entry taken again (the same: %v) holds a %d-byte deflate buffer", again == e, again.gather.Cap())
	}
}

// Two first snapshots at once in one process (two sessions' stores, two
// work trees) share the free entry buffers: each stores its own tree's
// bytes, the same trees as one taken alone, and nothing is kept after.
func TestConcurrentFirstSnapshotsShareBuffersSafely(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	tree := func(tag string) string {
		work := t.TempDir()
		body := make([]byte, 30_000)
		for i := range 200 { // over packMin: packed, read into entries
			d := filepath.Join(work, fmt.Sprintf("d%02d", i%10))
			os.MkdirAll(d, 0o755)
			for j := range body {
				body[j] = byte('a' + (i*31+j*7+len(tag))%26)
			}
			copy(body, tag+fmt.Sprintf(" file %d\n", i))
			if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%03d", i)), body[:1000+i*100], 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return work
	}
	works := []string{tree("one"), tree("two")}
	take := func(work string) string {
		s, err := Open(ctx, t.TempDir(), work, Options{})
		if err != nil {
			t.Error(err)
			return ""
		}
		snap, err := s.Take(ctx, "ses", "first")
		if err != nil {
			t.Error(err)
			return ""
		}
		if _, err := s.git.Output(ctx, nil, "fsck", "--strict"); err != nil {
			t.Errorf("fsck of %s's store: %v", work, err)
		}
		return snap.Tree
	}
	alone := []string{take(works[0]), take(works[1])}
	for round := range 3 {
		got := make([]string, 2)
		done := make(chan struct{})
		go func() { defer close(done); got[1] = take(works[1]) }()
		got[0] = take(works[0])
		<-done
		if got[0] != alone[0] || got[1] != alone[1] {
			t.Fatalf("round %d: trees %v taken together, %v alone", round, got, alone)
		}
	}
	entryFree.mu.Lock()
	kept, readers := entryFree.bytes, entryFree.readers
	entryFree.mu.Unlock()
	if kept != 0 || readers != 0 {
		t.Fatalf("after the snapshots: %d bytes kept, %d readers counted", kept, readers)
	}
}
