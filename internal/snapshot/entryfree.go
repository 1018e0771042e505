//go:build linux

package snapshot

// entryfree.go: the entry buffers a first snapshot reads its files into
// (fullstore.go), kept for reuse between files. A sync.Pool drops what it
// holds at every collection, and a first snapshot's reads (142 MB for
// 13,000 files) made the buffers again and again: allocation that brings
// the next collection on, whose heap goal doubles what the queues hold.
// Contract: getEntry(size) returns an entry whose buffer holds a body of
// size bytes framed (framedLen), its capacity a power of two from
// entryClassMin up, taken from the entries released with that capacity,
// or else twice it, when there is one; putEntry keeps a released entry
// while a first snapshot reads its files (beginEntryReads), unless
// entryFreeMax bytes of buffers are kept already (entries over
// entryClassMax, their deflate buffers and the rest are left to the
// collector); the last reads' end leaves every kept buffer to the
// collector, and what the pack queues release after it (the rest of the
// update, and the process after it, need not hold 4 MiB free). Safe for
// concurrent use.

import (
	"bytes"
	"math/bits"
	"sync"
)

const (
	entryClassMin = 4 << 10
	entryClassMax = 4 << 20
	entryFreeMax  = 4 << 20 // the most bytes of buffers kept free
	// entryReach is how many classes from its own an entry is taken
	// from: its class, else the next (twice its size at most), which
	// halves the buffers made for the log-normal sizes of a real tree
	// (13,000 files: 58 collections in 5 first snapshots against 33).
	entryReach = 2
)

// entryClasses is the number of size classes, entryClassMin to
// entryClassMax.
var entryClasses = bits.Len(entryClassMax / entryClassMin) // 11

var entryFree struct {
	mu      sync.Mutex
	readers int              // first snapshots reading: beginEntryReads
	lists   [16][]*fileEntry // by class
	bytes   int
}

// entryClass is the class of a buffer of n bytes at least (-1: over the
// largest).
func entryClass(n int) int {
	if n <= entryClassMin {
		return 0
	}
	c := bits.Len(uint(n-1)) - bits.Len(entryClassMin-1)
	if c >= entryClasses {
		return -1
	}
	return c
}

// getEntry is an entry ready for a body of size bytes.
func getEntry(size int64) *fileEntry {
	want := framedLen(int(min(size, entryClassMax)) + 1)
	c := entryClass(want)
	if c < 0 {
		return new(fileEntry) // readBody makes it to measure
	}
	entryFree.mu.Lock()
	for k := c; k < min(c+entryReach, entryClasses); k++ { // its class, else the next
		l := entryFree.lists[k]
		if n := len(l); n > 0 {
			e := l[n-1]
			entryFree.lists[k] = l[:n-1]
			entryFree.bytes -= cap(e.buf)
			entryFree.mu.Unlock()
			return e
		}
	}
	entryFree.mu.Unlock()
	return &fileEntry{buf: make([]byte, entryClassMin<<c)}
}

// putEntry releases e for reuse.
func putEntry(e *fileEntry) {
	e.gather = bytes.Buffer{} // a secret's deflated body: not kept, not counted
	c := cap(e.buf)
	if c < entryClassMin || c > entryClassMax || c&(c-1) != 0 {
		return // made to measure: not a class's
	}
	k := entryClass(c)
	entryFree.mu.Lock()
	defer entryFree.mu.Unlock()
	if entryFree.readers == 0 || entryFree.bytes+c > entryFreeMax {
		return
	}
	entryFree.lists[k] = append(entryFree.lists[k], e)
	entryFree.bytes += c
}

// beginEntryReads counts a first snapshot's reads in; the function it
// returns (once, on every path) counts them out, and the last out leaves
// the kept buffers to the collector.
func beginEntryReads() (end func()) {
	entryFree.mu.Lock()
	entryFree.readers++
	entryFree.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			entryFree.mu.Lock()
			defer entryFree.mu.Unlock()
			if entryFree.readers--; entryFree.readers == 0 {
				entryFree.lists = [16][]*fileEntry{}
				entryFree.bytes = 0
			}
		})
	}
}
