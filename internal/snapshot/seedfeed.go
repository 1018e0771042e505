package snapshot

// seedfeed.go: the first snapshot's walk reads the seeded store index's
// entries as the seed writes them (seed.go's second pass), not the file
// afterwards: the seed and the walk run side by side, and the index is
// read from the user's repository and written once. Contract: the walk
// (goPath.walk) gets from next exactly the entries written into the
// store's index, in its order; finish returns, once the index is in place
// (renamed), its cache-tree extension's data as the file holds it and the
// writer's error (then the walk fails, and its caller walks with git).
// The racy mark is the user's index's mtime: the seed cleared the size of
// every entry not older than it, so the seeded entries are judged as git
// judges them in the user's repository. drain lets a caller that stops
// reading (or never starts) release the writer.

import "bytes"

// seedFeed hands the seed's entries to the walk in batches.
type seedFeed struct {
	n     int       // the entries the index holds
	since [2]uint32 // the racy mark: the user's index's mtime
	ch    chan []indexEntry
	out   []indexEntry // the writer's batch
	in    []indexEntry // the walk's batch
	ext   []byte       // set before ch is closed
	err   error
}

const seedBatch = 256

func newSeedFeed(n int, since [2]uint32) *seedFeed {
	return &seedFeed{n: n, since: since, ch: make(chan []indexEntry, 8), out: make([]indexEntry, 0, seedBatch)}
}

// add is the writer's: e (its path kept, not copied) goes to the walk.
func (f *seedFeed) add(e *indexEntry) {
	f.out = append(f.out, *e)
	if len(f.out) == seedBatch {
		f.ch <- f.out
		f.out = make([]indexEntry, 0, seedBatch)
	}
}

// close is the writer's last call: the index written (err nil) with ext
// as its cache-tree, or not.
func (f *seedFeed) close(ext []byte, err error) {
	if err == nil && len(f.out) > 0 {
		f.ch <- f.out
	}
	f.out = nil
	f.ext, f.err = ext, err
	close(f.ch)
}

// next reads the next entry into e, false at the end.
func (f *seedFeed) next(e *indexEntry) bool {
	for len(f.in) == 0 {
		b, ok := <-f.ch
		if !ok {
			return false
		}
		f.in = b
	}
	*e = f.in[0]
	f.in = f.in[1:]
	return true
}

// finish waits for the writer and returns the index's cache-tree data
// and the writer's error.
func (f *seedFeed) finish() ([]byte, error) {
	f.drain()
	return f.ext, f.err
}

// drain discards what the walk did not read and waits for the writer.
func (f *seedFeed) drain() {
	for range f.ch {
	}
	f.in = nil
}

// encodeCacheTree is t as a TREE extension's data (writeTreeExt's).
func encodeCacheTree(t *cacheTree) []byte {
	var b bytes.Buffer
	t.encode(&b, true)
	return b.Bytes()
}
