//go:build linux

package snapshot

// goindex.go: a step's changed files stored without a git process.
// Contract: goPath.update hashes the changed paths (up to goUpdateMax, four at a
// time, reporting progress by chunks), writes their blobs (a first snapshot
// of fewer than packMin files: loose objects, objwrite.go), rewrites the store's index with their new stat data (the
// other entries copied as they are, the index streamed once from disk,
// never held; the entry count the walk saw checked as it is written), and writes the trees of the directories that
// changed only (a first snapshot's objects in one pack, two when large,
// packwrite.go and packpair.go; a
// step's in a small pack, steppack.go): the index's cache-tree (cachetree.go) keeps the tree of
// every directory, as git's does, and is written back updated, so git's
// write-tree, ls-files and read-tree see the same index git would have
// written. The result is the tree `update-index` + `write-tree` give
// (walk_test.go compares them). It checks as it goes that the cache-tree
// agrees with the entries (every valid directory's entry count); on any
// doubt it writes no index and says so (ok false): the caller runs git's
// path, and the blobs already written are only objects git finds there.
// A file changed at or after the index was last written is recorded with
// its size cleared ("racily clean", as git does), so a change in the same
// timestamp tick is not missed: the next walk hashes it again.

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// change is a changed path's new entry, or its removal.
type change struct {
	e    indexEntry
	gone bool
}

// update stores update (added or changed, or gone) and drops remove
// from the store's index, whose state the walk saw (idx), and returns the
// root tree. errGoUpdate: nothing was written to the index.
func (g *goPath) update(update, remove []string, skipped *[]Skip, wr walkResult, rep *reporter) (string, error) {
	idx, tree := wr.index, wr.tree
	if idx == nil {
		if _, err := os.Lstat(g.indexFile); !errors.Is(err, os.ErrNotExist) {
			return "", errGoUpdate // an index the walk did not read
		}
		tree = nil // the first snapshot: no index yet
	}
	if len(update) == 0 && len(remove) == 0 && tree != nil && tree.count >= 0 {
		return hexOf(tree.oid), nil // nothing changed: the index as it is
	}
	defer boundGC(len(update) + len(remove))() // gcbound.go
	finishPack := func() error { return nil }
	var first *packPair // a first snapshot's packs: files read into them (fullstore.go, packpair.go)
	// The changed paths' records (changeset.go).
	changes := newChangeSet(update, remove)
	// A first snapshot of many files goes into one pack (packwrite.go),
	// two when larger (packpair.go).
	put := toLoose(g.gitDir)
	// A step's, small as it is, too (steppack.go).
	if tree == nil && len(update) >= packMin || tree != nil {
		var pack *packWriter
		var err error
		if tree != nil {
			pack, err = newStepPack(g.gitDir, g.secrets)
		} else if first, err = newPackPair(g.gitDir, g.secrets, update); err == nil { // packplan.go
			pack = first.a
		}
		if err != nil {
			return "", err
		}
		finished := false
		defer func() {
			if finished {
				return
			}
			if first != nil {
				first.abort()
			} else {
				pack.abort()
			}
		}()
		put = pack.put // the trees: a first snapshot's in its first pack
		finishPack = func() error {
			finished = true
			if first != nil {
				return first.finish()
			}
			if err := pack.finish(); err != nil {
				return err
			}
			pack.dropMerged()
			return nil
		}
	}
	bp := &blobPut{body: storeNew(put, wr.tracked), inRuns: tree == nil}
	if first != nil {
		bp.body = first.body(wr.tracked)
		bp.file = packFiles(first, wr.tracked)
	}
	endReads := func() {}
	if first != nil {
		endReads = beginEntryReads() // entryfree.go
		defer endReads()
	}
	if err := g.hashAll(update, changes, skipped, rep, bp); err != nil {
		return "", err
	}
	if first != nil {
		endReads()      // every file read
		first.finishB() // every blob stored: b finishes beside the index and the trees (packpair.go)
	}
	// The changed paths in order.
	paths := changes.paths
	if tree == nil {
		tree = &cacheTree{count: -1}
	}
	for _, p := range paths {
		tree.invalidate(p)
	}
	// Racily clean: changed at or after the index was written.
	// Without an index yet, what changed in the last two seconds (a
	// file system's timestamps may be that coarse).
	since := time.Now().Add(-2 * time.Second)
	if idx != nil {
		since = idx.ModTime()
	}
	idxSec, idxNsec := uint32(since.Unix()), uint32(since.Nanosecond())
	for i := range changes.vals {
		if c := &changes.vals[i]; !c.gone && racy(&indexEntry{stat: c.stat}, [2]uint32{idxSec, idxNsec}) {
			binary.BigEndian.PutUint32(c.stat[36:], 0)
		}
	}
	// The new index's entry count, from what the walk saw: checked as
	// the entries are written.
	n := wr.entries
	for i, p := range paths {
		switch c := &changes.vals[i]; {
		case c.gone && had(wr.tracked, p):
			n--
		case !c.gone && !had(wr.tracked, p):
			n++
		}
	}
	tmp := g.indexFile + ".go"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return "", err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	w := newIndexWriter(f)
	writeIndexHeader(w, n)
	// The entries, counted per directory, those of the changed
	// directories kept for their trees.
	ct := newTreeCounter(tree, put)
	written := 0
	err = g.eachMerged(idx, changes, func(e *indexEntry, path, raw []byte) error {
		written++
		if raw != nil {
			w.Write(raw) // unchanged: its bytes as they are (indexcopy.go)
		} else {
			writeEntry(w, e)
		}
		return ct.add(path, e.mode(), e.oid)
	})
	if err == nil && written != n {
		err = errGoUpdate // not the index the walk saw
	}
	if err != nil {
		return "", err
	}
	root, err := ct.trees(put)
	if err != nil {
		return "", err
	}
	if err := finishPack(); err != nil {
		return "", err
	}
	writeTreeExt(w, tree)
	if err := w.finish(); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	// Still the index the walk read (the store's lock is held: only a
	// process that ignores it could have changed it).
	if fi, err := os.Stat(g.indexFile); idx == nil && err == nil ||
		idx != nil && (err != nil || !os.SameFile(fi, idx) || !fi.ModTime().Equal(idx.ModTime()) || fi.Size() != idx.Size()) {
		return "", errGoUpdate
	}
	if err := os.Rename(tmp, g.indexFile); err != nil {
		return "", err
	}
	ok = true
	return root, nil
}

func had(m map[string][20]byte, p string) bool { _, ok := m[p]; return ok }

// storeNew is put for the changed files: a file hashed again and found as
// its entry has it (racily clean, or touched and unchanged) is not stored
// again: its blob is the one the index already names, in the store (a
// first snapshot's pack, where a loose object would be a second copy).
func storeNew(put putObject, tracked map[string][20]byte) func(p string, body []byte) (string, error) {
	return func(p string, body []byte) (string, error) {
		if old, ok := tracked[p]; ok {
			if oid := objectID("blob", body); oid == old {
				return hexOf(oid), nil
			}
		}
		return put("blob", body)
	}
}

// eachMerged hands fn the store's index's entries with changes merged in,
// in order, each with its path; an unchanged entry of a version-2 index
// also with its bytes in the file (raw, to be copied: indexcopy.go), a
// changed one, or one of another version, with raw nil. path and raw are
// valid until fn returns.
func (g *goPath) eachMerged(idx os.FileInfo, changes *changeSet, fn func(e *indexEntry, path, raw []byte) error) error {
	paths := changes.paths
	if idx == nil { // no index yet: the changes alone
		for i, p := range paths {
			if !changes.vals[i].gone {
				e := changes.entry(i)
				if err := fn(&e, []byte(p), nil); err != nil {
					return err
				}
			}
		}
		return nil
	}
	f, err := os.Open(g.indexFile)
	if err != nil {
		return errGoUpdate
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !os.SameFile(fi, idx) || fi.Size() != idx.Size() {
		return errGoUpdate
	}
	x, err := newIndexReader(f)
	if err != nil {
		return errGoUpdate
	}
	// The walk read this file in this step and checked its checksum; update
	// checks, before it renames the new index, that it is still the same
	// file (inode, size and mtime).
	x.trust()
	var e indexEntry
	raw, path, has := x.nextRaw(&e)
	i := 0
	for has || i < len(paths) {
		switch {
		case i < len(paths) && (!has || paths[i] < string(path)):
			if !changes.vals[i].gone {
				e := changes.entry(i)
				if err := fn(&e, []byte(paths[i]), nil); err != nil {
					return err
				}
			}
			i++
		case i < len(paths) && paths[i] == string(path):
			if !changes.vals[i].gone {
				e := changes.entry(i)
				if err := fn(&e, []byte(paths[i]), nil); err != nil {
					return err
				}
			}
			i++
			raw, path, has = x.nextRaw(&e)
		default:
			if e.flags&0x3000 != 0 || e.ext != 0 {
				return errGoUpdate // a stage or a flag the store never writes
			}
			if raw == nil {
				entriesEncoded.Add(1)
			}
			if err := fn(&e, path, raw); err != nil {
				return err
			}
			raw, path, has = x.nextRaw(&e)
		}
	}
	if _, err := x.finish(); err != nil {
		return errGoUpdate
	}
	return nil
}

// hashers is how many files are read and stored at once.
const hashers = 4

// hashAll hashes paths into changes, hashers at once, each taking the
// next path as it finishes one (no barrier between chunks: a first
// snapshot's pack writers are fed without a pause; a first snapshot's
// paths a run of one directory at a time, opened relative to it:
// hashrun_linux.go); with a reporter and
// more than progressChunk paths it reports each chunk once it is done
// (done counts progressChunk apart, then all) and stops with ErrSkipped
// when the user skips, seen by the hashers at each path and by the
// reporter before each report (progress.go).
// Each path's record in changes is written as it is hashed (a path
// of changes each); skipped is filled in path order, after all are hashed.
func (g *goPath) hashAll(paths []string, changes *changeSet, skipped *[]Skip, rep *reporter, put *blobPut) error {
	if len(paths) <= progressChunk {
		rep = nil
	}
	if rep != nil && rep.skipped() {
		return ErrSkipped
	}
	// Skips and errors are few: kept aside with their path's place, not a
	// slot a path.
	type aside struct {
		i   int
		sk  *Skip
		err error
	}
	var mu sync.Mutex
	var asides []aside
	var next, finished atomic.Int64
	var stop, skip atomic.Bool // an error or a skip: take no more paths
	chunkDone := make(chan struct{}, 1)
	// Runs of one directory, opened once for a first snapshot's files
	// (hashrun_linux.go).
	inRuns := put.file != nil || put.inRuns
	ends := pathRuns(paths, inRuns)
	var dirs *runDirs
	if inRuns {
		dirs = openRunDirs(g.workTree)
		defer dirs.close()
	}
	hashRun := func(lo, hi int) {
		d, derr := -1, error(nil)
		if dirs != nil {
			d, derr = dirs.open(dirOf(paths[lo]))
			defer dirs.done(d)
		}
		for i := lo; i < hi; i++ {
			if i > lo && (stop.Load() || rep != nil && rep.skipped()) {
				return // the hasher's loop sees why
			}
			var c *change
			var sk *Skip
			var err error
			switch {
			case derr != nil: // errRunGone
				c = &change{gone: true}
			case d >= 0:
				c, sk, err = g.hashPathAt(paths[i], fileAt{d, baseOf(paths[i])}, put)
			default:
				c, sk, err = g.hashPath(paths[i], put)
			}
			if c != nil {
				changes.at(paths[i]).set(c)
			}
			if sk != nil || err != nil {
				mu.Lock()
				asides = append(asides, aside{i, sk, err})
				mu.Unlock()
			}
			if err != nil {
				stop.Store(true)
			}
			if n := finished.Add(1); rep != nil && n%int64(progressChunk) == 0 {
				select {
				case chunkDone <- struct{}{}:
				default: // one pending wakes the reporter for all
				}
			}
		}
	}
	var wg sync.WaitGroup
	for range min(hashers, len(ends)) {
		wg.Go(func() {
			for !stop.Load() {
				if rep != nil && rep.skipped() {
					skip.Store(true)
					stop.Store(true)
					return
				}
				r := int(next.Add(1) - 1)
				if r >= len(ends) {
					return
				}
				lo := 0
				if r > 0 {
					lo = ends[r-1]
				}
				hashRun(lo, ends[r])
			}
		})
	}
	all := make(chan struct{})
	go func() { wg.Wait(); close(all) }()
	reported := 0
	report := func(n int) {
		if n > reported {
			reported = n
			rep.report(n, len(paths))
		}
	}
	for waiting := true; waiting; {
		select {
		case <-all:
			waiting = false
		case <-chunkDone:
			// Each chunk finished since the last report, once (a
			// signal may stand for several).
			for n := reported + progressChunk; n <= int(finished.Load()) && !stop.Load(); n += progressChunk {
				if rep.skipped() {
					skip.Store(true)
					stop.Store(true)
					break
				}
				report(n)
			}
		}
	}
	slices.SortFunc(asides, func(a, b aside) int { return a.i - b.i })
	for _, a := range asides {
		if a.err != nil {
			return a.err
		}
	}
	if skip.Load() || rep != nil && rep.skipped() {
		return ErrSkipped
	}
	for _, a := range asides {
		*skipped = append(*skipped, *a.sk)
	}
	if rep != nil {
		report(len(paths))
	}
	return nil
}

// hashPath reads the changed path p and writes its blob: its new entry,
// its removal when gone, or a Skip (and its removal) when it cannot be
// kept.
func (g *goPath) hashPath(p string, put *blobPut) (*change, *Skip, error) {
	return g.hashPathAt(p, fileAt{-1, filepath.Join(g.workTree, filepath.FromSlash(p))}, put)
}

// hashPathAt is hashPath of p at f: by its whole path, or relative to its
// directory (hashrun_linux.go).
func (g *goPath) hashPathAt(p string, f fileAt, put *blobPut) (*change, *Skip, error) {
	if put.file != nil { // opened first, no lstat (fullstore.go)
		if c, sk, done, err := g.hashOpened(p, f, put); done {
			return c, sk, err
		}
	}
	var st syscall.Stat_t
	if err := f.lstat(&st); err != nil {
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENOTDIR) {
			return &change{gone: true}, nil, nil
		}
		return &change{gone: true}, &Skip{Path: p, Reason: ReasonUnreadable}, nil
	}
	var body []byte
	var mode uint32
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFLNK:
		target, err := f.readlink()
		if err != nil {
			return &change{gone: true}, &Skip{Path: p, Reason: ReasonUnreadable}, nil
		}
		body, mode = []byte(target), 0o120000
	case syscall.S_IFREG:
		if st.Size > g.maxBytes {
			return &change{gone: true}, tooLarge(p, &st, g.maxBytes), nil
		}
		buf := readBufs.Get().(*bytes.Buffer)
		defer readBufs.Put(buf)
		if err := readRegularAt(f, &st, g.maxBytes, buf); err != nil {
			return &change{gone: true}, &Skip{Path: p, Reason: ReasonUnreadable}, nil
		}
		body, mode = buf.Bytes(), 0o100644
		if st.Mode&0o100 != 0 {
			mode = 0o100755
		}
		if g.perms != nil {
			g.perms.note(p, st.Mode) // fullstore.go
		}
	default:
		return &change{gone: true}, &Skip{Path: p, Reason: ReasonNotFile}, nil
	}
	oid, err := put.body(p, body)
	if err != nil {
		return nil, nil, err
	}
	c := &change{}
	c.e.path = p
	fillStat(&c.e, &st, mode, uint32(st.Size))
	raw, _ := hex.DecodeString(oid)
	copy(c.e.oid[:], raw)
	return c, nil, nil
}

// readBufs hold the files being stored (at most Options.MaxFileBytes).
var readBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// readRegularAt reads the regular file at at that st describes into
// buf, without following a link put in its place or blocking on a FIFO; a
// file that is no longer the one st names is an error.
func readRegularAt(at fileAt, st *syscall.Stat_t, max int64, buf *bytes.Buffer) error {
	fd, err := at.open(syscall.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_CLOEXEC)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), at.name)
	defer f.Close()
	var now syscall.Stat_t
	if err := syscall.Fstat(fd, &now); err != nil || now.Ino != st.Ino || now.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return errors.New("changed while read")
	}
	buf.Reset()
	buf.Grow(int(min(now.Size, max)) + 1)
	if _, err := buf.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return err
	}
	if int64(buf.Len()) > max {
		return errors.New("grew over the limit")
	}
	return nil
}

// treeCounter follows the entries of the new index into the cache-tree:
// every directory's entry count, and the entries of the changed
// directories (for their trees). A directory's entries are one run of
// the index's order (every path under "d/" sorts together), so once the
// entries leave a directory its tree is written (put) and its entries let
// go: what is held is the entries of the directories open on the current
// path, not of every changed directory (a first snapshot's: all).
type treeCounter struct {
	root    *cacheTree
	put     putObject
	counts  map[*cacheTree]int
	files   map[*cacheTree][]treeEntry
	lastDir string
	chain   []*cacheTree // root … the last entry's directory
	next    []*cacheTree // the chain being built (its buffer, reused)
	run     int          // entries added since chain was set, not yet in counts
}

func newTreeCounter(root *cacheTree, put putObject) *treeCounter {
	return &treeCounter{root: root, put: put, counts: map[*cacheTree]int{}, files: map[*cacheTree][]treeEntry{}, chain: []*cacheTree{root}}
}

// add counts the entry at path (mode, oid) in its directories; path is
// only read during the call.
func (c *treeCounter) add(path []byte, mode uint32, oid [20]byte) error {
	var dir, name []byte = nil, path
	if i := bytes.LastIndexByte(path, '/'); i >= 0 {
		dir, name = path[:i], path[i+1:]
	}
	if string(dir) != c.lastDir || len(c.chain) == 0 {
		c.flushRun()
		next := append(c.next[:0], c.root)
		node := c.root
		if len(dir) != 0 {
			for _, comp := range strings.Split(string(dir), "/") {
				var k *cacheTree
				for _, kid := range node.kids {
					if kid.name == comp {
						k = kid
						break
					}
				}
				if k == nil {
					if node.count >= 0 {
						return errGoUpdate // an entry under a valid tree that does not name it
					}
					k = &cacheTree{name: comp, count: -1}
					node.kids = append(node.kids, k)
				}
				node = k
				next = append(next, node)
			}
		}
		if err := c.leave(next); err != nil {
			return err
		}
		c.chain, c.next = next, c.chain
		c.lastDir = string(dir)
	}
	c.run++ // counted in the chain's directories once it changes
	if last := c.chain[len(c.chain)-1]; last.count < 0 {
		c.files[last] = append(c.files[last], treeEntry{name: string(name), mode: mode, oid: oid})
	}
	return nil
}

// leave writes the trees of the directories of the chain that next does
// not hold, deepest first: no entry of theirs comes after.
func (c *treeCounter) leave(next []*cacheTree) error {
	k := 0
	for k < len(c.chain) && k < len(next) && c.chain[k] == next[k] {
		k++
	}
	for i := len(c.chain) - 1; i >= k; i-- {
		if t := c.chain[i]; t.count < 0 {
			if _, err := c.tree(c.put, t); err != nil {
				return err
			}
			delete(c.files, t)
		}
	}
	return nil
}

// trees writes the trees of the changed directories, bottom up, checks
// the valid ones' counts, and returns the root tree.
func (c *treeCounter) trees(put putObject) (string, error) {
	c.flushRun()
	oid, err := c.tree(put, c.root)
	if err != nil {
		return "", err
	}
	return hexOf(oid), nil
}

// flushRun adds the entries of the last run of one directory to the
// counts of its directories: a map update per directory, not per entry.
func (c *treeCounter) flushRun() {
	if c.run > 0 {
		for _, n := range c.chain {
			c.counts[n] += c.run
		}
	}
	c.run = 0
}

func (c *treeCounter) tree(put putObject, t *cacheTree) ([20]byte, error) {
	if t.count >= 0 {
		if c.counts[t] != t.count {
			return t.oid, errGoUpdate
		}
		return t.oid, nil
	}
	ents := c.files[t]
	kids := t.kids[:0]
	for _, k := range t.kids {
		if c.counts[k] == 0 {
			continue // no entry left under it
		}
		oid, err := c.tree(put, k)
		if err != nil {
			return oid, err
		}
		ents = append(ents, treeEntry{name: k.name, mode: 0o40000, oid: oid})
		kids = append(kids, k)
	}
	t.kids = kids
	key := func(e treeEntry) string {
		if e.mode == 0o40000 {
			return e.name + "/"
		}
		return e.name
	}
	slices.SortFunc(ents, func(a, b treeEntry) int { return strings.Compare(key(a), key(b)) })
	var b bytes.Buffer
	for _, e := range ents {
		b.WriteString(strconvOctal(e.mode))
		b.WriteByte(' ')
		b.WriteString(e.name)
		b.WriteByte(0)
		b.Write(e.oid[:])
	}
	oid, err := put("tree", b.Bytes())
	if err != nil {
		return [20]byte{}, err
	}
	raw, _ := hex.DecodeString(oid)
	copy(t.oid[:], raw)
	t.count = c.counts[t]
	return t.oid, nil
}
