//go:build linux

package snapshot

// dircache.go: the walk's untracked cache, as git's (core.untrackedCache),
// simpler. Contract: dirCache.list answers a directory's entries (sorted
// in the index's order, ".git" left out) as a readdir would, from the
// listing recorded the last time the directory was read when the
// directory's stat data — device, inode, mtime and ctime, to the
// nanosecond — are the ones recorded then and that mtime and ctime are
// older than the listing by more than racyMargin; otherwise it reads the
// directory and records it. A directory's mtime and ctime change when an
// entry is added, removed or renamed in it (not when a file's content
// changes): that is all the listing depends on. Ignore rules are not
// cached: the walk matches the listed names against the .gitignore files,
// info/exclude and the user's excludes as they are now (it reads each
// .gitignore again), and lstats every tracked file, so a new or edited
// .gitignore, or a file whose content changed, is seen as without the
// cache. Timestamps within racyMargin of the listing are not trusted: a
// change in the same timestamp tick as the read (a file system's clock
// may be a few milliseconds coarse, FAT's two seconds) would leave the
// stat data as recorded.
//
// The cache is on only for file systems known to update a directory's
// mtime on every entry change (cacheableFS); it is kept in memory for
// the Store's life and in <store>/agent-dircache (written whole, in place
// where that is safe: cachefile_linux.go, a CRC at its end; a file that
// does not read back is ignored: the next walk reads every directory and
// writes it again).
// Records of directories the last walk did not visit are dropped.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ctxloop/agent/internal/safefile"
)

// racyMargin: a directory changed less than this before its listing was
// read is read again at the next walk.
const racyMargin = 2 * time.Second

// dirCacheNow is the clock the listings are stamped with (tests move it).
var dirCacheNow = time.Now

// dirCacheHits counts the listings answered from the cache (tests).
var dirCacheHits atomic.Int64

// dirCache is the walk's per-directory listings; one walk at a time
// (begin … end).
type dirCache struct {
	file string // where it is kept

	mu     sync.Mutex // held from begin to end
	lmu    sync.Mutex // dirs and dirty, in list: walkers side by side (walkfork.go)
	loaded bool
	dirs   map[string]*dirRecord // by the directory's path ("" or "a/b/")
	dirty  bool
	gen    uint32 // the current walk
	on     bool   // this walk uses it (a file system it trusts)
}

// dirRecord is one directory's listing and the stat data it was read at.
type dirRecord struct {
	st     dirStat
	listed int64  // UnixNano of the clock before the stat
	list   string // the entries, packed (packDirents): ≈ a name's bytes each
	gen    uint32 // the last walk that visited it
}

type dirStat struct {
	dev, ino           uint64
	mtS, mtN, ctS, ctN int64
}

func newDirCache(file string) *dirCache {
	return &dirCache{file: file}
}

// begin starts a walk of work; end must follow.
func (c *dirCache) begin(work string) {
	c.mu.Lock()
	c.on = cacheableFS(work)
	if !c.on {
		return
	}
	if !c.loaded {
		c.loaded = true
		c.dirs = c.load()
	}
	c.gen++
}

// end finishes the walk: records of directories it did not visit are
// dropped, and the cache is written when it changed. ok false (a walk
// that failed): nothing is dropped or written.
func (c *dirCache) end(ok bool) {
	defer c.mu.Unlock()
	if !c.on || !ok {
		return
	}
	for k, r := range c.dirs {
		if r.gen != c.gen {
			delete(c.dirs, k)
			c.dirty = true
		}
	}
	if c.dirty && c.save() == nil {
		c.dirty = false
	}
}

// list returns the entries of the directory rel (abs its path, d the
// directory opened: walkdir_linux.go, nil when it could not be), sorted
// by key; an error when it cannot be read.
func (c *dirCache) list(rel, abs string, d *dirFD) ([]dirent, error) {
	if c == nil || !c.on {
		return d.entries(abs)
	}
	now := dirCacheNow().UnixNano()
	var st syscall.Stat_t
	if err := d.stat(abs, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		c.lmu.Lock()
		delete(c.dirs, rel)
		c.lmu.Unlock()
		return d.entries(abs)
	}
	ds := dirStatOf(&st)
	c.lmu.Lock()
	old := c.dirs[rel]
	c.lmu.Unlock()
	if old != nil && old.st == ds && trusted(ds, old.listed) {
		old.gen = c.gen // the record is this directory's walker's alone
		dirCacheHits.Add(1)
		return unpackDirents(old.list), nil
	}
	ents, err := d.entries(abs)
	if err != nil {
		c.lmu.Lock()
		delete(c.dirs, rel)
		c.lmu.Unlock()
		return ents, err
	}
	list := packDirents(ents)
	c.lmu.Lock()
	defer c.lmu.Unlock()
	if old == nil || old.st != ds || old.list != list || !trusted(ds, old.listed) && trusted(ds, now) {
		c.dirty = true
	}
	c.dirs[rel] = &dirRecord{st: ds, listed: now, list: list, gen: c.gen}
	return ents, nil
}

// trusted reports whether a listing read at listed (taken before the
// directory's stat) holds for stat data st: st's times are older than it
// by more than racyMargin.
func trusted(st dirStat, listed int64) bool {
	limit := listed - int64(racyMargin)
	return st.mtS*1e9+st.mtN < limit && st.ctS*1e9+st.ctN < limit
}

func dirStatOf(st *syscall.Stat_t) dirStat {
	return dirStat{
		dev: uint64(st.Dev), ino: uint64(st.Ino),
		mtS: int64(st.Mtim.Sec), mtN: int64(st.Mtim.Nsec),
		ctS: int64(st.Ctim.Sec), ctN: int64(st.Ctim.Nsec),
	}
}

// packDirents packs a listing into one string: for each entry its type
// ('f' regular, 'd' directory, 'l' symlink, 'o' anything else), its key
// and a NUL. A cached directory costs about its names' bytes, not a
// dirent (≈ 40 bytes and two strings) per entry.
func packDirents(ents []dirent) string {
	var b strings.Builder
	for _, e := range ents {
		switch {
		case e.typ.IsRegular():
			b.WriteByte('f')
		case e.typ.IsDir():
			b.WriteByte('d')
		case e.typ&fs.ModeSymlink != 0:
			b.WriteByte('l')
		default:
			b.WriteByte('o')
		}
		b.WriteString(e.key)
		b.WriteByte(0)
	}
	return b.String()
}

// unpackDirents is packDirents' listing again; the names are slices of
// list.
func unpackDirents(list string) []dirent {
	ents := make([]dirent, 0, strings.Count(list, "\x00"))
	for len(list) > 0 {
		i := strings.IndexByte(list, 0)
		if i < 1 {
			break
		}
		e := dirent{key: list[1:i]}
		e.name = e.key
		switch list[0] {
		case 'd':
			e.typ = fs.ModeDir
			e.name = strings.TrimSuffix(e.key, "/")
		case 'l':
			e.typ = fs.ModeSymlink
		case 'o':
			e.typ = fs.ModeNamedPipe
		}
		ents = append(ents, e)
		list = list[i+1:]
	}
	return ents
}

// cacheableFS reports whether the file system of dir is one whose
// directories' mtime changes with every entry added, removed or renamed
// (local Linux file systems; not network or FUSE ones, where git's own
// untracked cache is also unsafe).
func cacheableFS(dir string) bool {
	var sf syscall.Statfs_t
	if err := syscall.Statfs(dir, &sf); err != nil {
		return false
	}
	switch uint32(sf.Type) {
	case 0xEF53, // ext2/3/4
		0x58465342, // xfs
		0x9123683E, // btrfs
		0x01021994, // tmpfs
		0x2FC12FC1, // zfs
		0xF2F52010: // f2fs
		return true
	}
	return false
}

// The file: "ADC2", then per directory its path, stat data, listing time
// and packed entries (packDirents), lengths and numbers as uvarints, then
// the CRC-32 of all before it.
const dirCacheMagic = "ADC2"

var errDirCache = errors.New("dircache: unreadable")

func (c *dirCache) save() error {
	var b bytes.Buffer
	b.WriteString(dirCacheMagic)
	put := func(v uint64) { b.Write(binary.AppendUvarint(nil, v)) }
	str := func(s string) { put(uint64(len(s))); b.WriteString(s) }
	put(uint64(len(c.dirs)))
	for rel, r := range c.dirs {
		str(rel)
		for _, v := range []uint64{r.st.dev, r.st.ino, uint64(r.st.mtS), uint64(r.st.mtN), uint64(r.st.ctS), uint64(r.st.ctN), uint64(r.listed)} {
			put(v)
		}
		str(r.list)
	}
	b.Write(binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(b.Bytes())))
	return writeCacheFile(c.file, b.Bytes()) // cachefile_linux.go
}

// dirCacheMaxBytes bounds the cache file read back: past it (a file
// grown by someone else), the cache starts empty.
const dirCacheMaxBytes = 64 << 20

// load reads the file (through safefile: a FIFO in its place must not
// hang a step); an empty cache when it is missing, too large or does not
// read back whole.
func (c *dirCache) load() map[string]*dirRecord {
	dirs := map[string]*dirRecord{}
	data, err := safefile.Read(context.Background(), c.file, filepath.Dir(c.file), dirCacheMaxBytes)
	if err != nil || len(data) < len(dirCacheMagic)+4 || string(data[:4]) != dirCacheMagic {
		return dirs
	}
	body := data[:len(data)-4]
	if crc32.ChecksumIEEE(body) != binary.BigEndian.Uint32(data[len(data)-4:]) {
		return dirs
	}
	r := bufio.NewReader(bytes.NewReader(body[4:]))
	get := func() uint64 {
		v, e := binary.ReadUvarint(r)
		if e != nil {
			err = errDirCache
		}
		return v
	}
	str := func() string {
		n := get()
		if err != nil || n > uint64(len(body)) {
			err = errDirCache
			return ""
		}
		s := make([]byte, n)
		if _, e := io.ReadFull(r, s); e != nil {
			err = errDirCache
		}
		return string(s)
	}
	n := get()
	for i := uint64(0); i < n && err == nil; i++ {
		rel := str()
		rec := &dirRecord{}
		rec.st.dev, rec.st.ino = get(), get()
		rec.st.mtS, rec.st.mtN, rec.st.ctS, rec.st.ctN = int64(get()), int64(get()), int64(get()), int64(get())
		rec.listed = int64(get())
		rec.list = str()
		dirs[rel] = rec
	}
	if err != nil {
		return map[string]*dirRecord{}
	}
	return dirs
}
