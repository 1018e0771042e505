//go:build linux

package snapshot

// fullstore.go: a first snapshot's files read once, straight into their
// pack entries (issue 26: outside git the first snapshot stores every
// file, at the cost of `tar c`). Contract: hashOpened opens a changed
// path as readRegularAt does (no link followed, no FIFO waited on) and
// takes its stat data from the open file, before it is read (an lstat
// fewer a file); one that is not a regular file that opens is left to
// hashPath's lstat. fileEntry.readFD reads the open file, at most max
// bytes, into the pack entry packEntryBytes would encode for it, byte for
// byte (fullstore_test.go): the body is read into its stored blocks in
// place, each block's 5-byte header left free before it, so its bytes
// are copied once, from the file into the buffer the pack is written
// from; the object id (SHA-1 of "blob <n>\0" and the body), the zlib
// Adler-32 (adler.go) and the entry's CRC-32 (the pack index's) are
// computed over that buffer. A body that holds a secret value
// (Options.Secrets, looked for across the blocks' seams too) is encoded
// deflated, by packEntryBytes, as before. blobPut is what hashPath stores
// a changed file with: body, the bytes it read; file, when not nil (a
// first snapshot's pack), the file hashOpened opened; both note the odd
// modes of what they store in goPath.perms (permlog.go).

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strconv"
	"syscall"
	"time"
)

// blobPut stores changed files' blobs (hashPath).
type blobPut struct {
	// body stores the content read from p.
	body func(p string, body []byte) (string, error)
	// file reads the regular file p, open as fd, that st describes, and
	// stores it; readErr: it could not be read (nothing stored), err:
	// the store failed. nil: hashPath reads the file and calls body.
	file func(p string, fd int, st *syscall.Stat_t, max int64) (oid [20]byte, readErr, err error)
	// inRuns: the paths are opened relative to their directories, no
	// link followed (hashrun_linux.go), as file's always are: a first
	// snapshot's, whose paths are not looked up again for an ancestor
	// that became a link (snapshot.go's blockedBy).
	inRuns bool
}

// hashOpened is hashPath for a blobPut with file: p, at f (relative to
// its directory: hashrun_linux.go), opened as readRegularAt opens, and
// fstat'ed; done false when it is not a regular file that opens (a link,
// a directory, gone, unreadable): hashPath's lstat says what it is.
func (g *goPath) hashOpened(p string, f fileAt, put *blobPut) (c *change, sk *Skip, done bool, err error) {
	fd, err := f.open(syscall.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_NOCTTY | syscall.O_CLOEXEC)
	if err != nil {
		return nil, nil, false, nil
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, nil, false, nil
	}
	if st.Size > g.maxBytes {
		return &change{gone: true}, tooLarge(p, &st, g.maxBytes), true, nil
	}
	oid, readErr, err := put.file(p, fd, &st, g.maxBytes)
	if err != nil {
		return nil, nil, true, err
	}
	if readErr != nil {
		return &change{gone: true}, &Skip{Path: p, Reason: ReasonUnreadable}, true, nil
	}
	mode := uint32(0o100644)
	if st.Mode&0o100 != 0 {
		mode = 0o100755
	}
	if g.perms != nil {
		g.perms.note(p, st.Mode)
	}
	c = &change{}
	c.e.path = p
	fillStat(&c.e, &st, mode, uint32(st.Size))
	c.e.oid = oid
	return c, nil, true, nil
}

// packFiles is file for a first snapshot's packs (packpair.go): the file
// read into its entry, which is stored in p's pack unless tracked already
// names its blob for p (storeNew).
func packFiles(packs *packPair, tracked map[string][20]byte) func(p string, fd int, st *syscall.Stat_t, max int64) ([20]byte, error, error) {
	return func(p string, fd int, st *syscall.Stat_t, max int64) ([20]byte, error, error) {
		e := getEntry(st.Size) // entryfree.go
		if err := e.readFD(fd, st.Size, max, packs.a.secrets); err != nil {
			putEntry(e)
			return [20]byte{}, err, nil
		}
		oid := e.oid
		if old, ok := tracked[p]; ok && old == oid {
			putEntry(e)
			return oid, nil, nil
		}
		// e is the pack's until written (packpipe.go).
		pack := packs.pick(len(e.entry()))
		return oid, nil, pack.putEntry(oid, e.entry(), e.crc, cap(e.buf)+e.gather.Cap(), func() { putEntry(e) })
	}
}

const (
	storedMax   = 0xffff        // a stored block's most bytes
	blockStride = storedMax + 5 // a stored block: its header and bytes
	entryHead   = 12            // room for an entry's header (≤ 10 bytes) and zlib's (2)
	zlibStored0 = 0x78          // zlib: deflate, 32K window
	zlibStored1 = 0x01          // … no compression, header check
)

// fileEntry is a file read as a pack entry: buf[start:end] is the entry.
type fileEntry struct {
	buf        []byte
	start, end int
	oid        [20]byte
	crc        uint32
	gather     bytes.Buffer // a secret's body, contiguous, and its entry
}

func (e *fileEntry) entry() []byte { return e.buf[e.start:e.end] }

// bodyAt is the offset in an entry buffer of the body's byte i.
func bodyAt(i int) int { return entryHead + i/storedMax*blockStride + 5 + i%storedMax }

// framedLen is the length of an entry buffer for a body of n bytes: the
// head, n bytes in stored blocks (one, empty, for 0 bytes) and the
// Adler-32.
func framedLen(n int) int {
	return entryHead + max(1, (n+storedMax-1)/storedMax)*5 + n + 4
}

// errChanged: the file grew over the limit as it was read.
var errChanged = errors.New("changed while read")

// readFD reads the open regular file fd, of size bytes by its stat data,
// into e and encodes its entry.
func (e *fileEntry) readFD(fd int, size, max int64, secrets []string) error {
	n, err := e.readBody(fd, int(min(size, max)), max)
	if err != nil {
		return err
	}
	e.frame(n, secrets)
	return nil
}

// readBody reads the file into e.buf's stored blocks, expecting size
// bytes, and returns how many it read.
func (e *fileEntry) readBody(fd, size int, max int64) (int, error) {
	want := framedLen(size + 1) // a byte more: the end is seen without another read
	if cap(e.buf) < want {
		e.buf = make([]byte, want)
	}
	e.buf = e.buf[:cap(e.buf)]
	n := 0
	for {
		at := bodyAt(n)
		end := min(at+storedMax-n%storedMax, len(e.buf)-4)
		if at >= end { // full: the file grew as it was read
			if int64(n) > max {
				return 0, errChanged
			}
			grown := make([]byte, framedLen(2*n))
			copy(grown, e.buf)
			e.buf = grown
			continue
		}
		r, err := syscall.Read(fd, e.buf[at:end])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		n += r
		if int64(n) > max {
			return 0, errChanged
		}
		// A regular file's read is short at its end only: the size
		// fstat gave, read short, is all of it.
		if r == 0 || n == size && r < end-at {
			return n, nil
		}
	}
}

// frame completes the entry around the n body bytes read: the blocks'
// headers, the Adler-32, the entry's and zlib's headers, the object id and
// the CRC-32; a body holding a secret is encoded deflated instead.
func (e *fileEntry) frame(n int, secrets []string) {
	blocks := max(1, (n+storedMax-1)/storedMax)
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(n) + "\x00"))
	adler := uint32(1)
	for i := range blocks {
		l := min(storedMax, n-i*storedMax)
		hd := e.buf[entryHead+i*blockStride:]
		hd[0] = 0
		if i == blocks-1 {
			hd[0] = 1
		}
		binary.LittleEndian.PutUint16(hd[1:], uint16(l))
		binary.LittleEndian.PutUint16(hd[3:], ^uint16(l))
		chunk := hd[5 : 5+l]
		h.Write(chunk)
		adler = adler32Update(adler, chunk)
	}
	h.Sum(e.oid[:0])
	e.end = entryHead + 5 // an empty body: its one empty block
	if n > 0 {
		e.end = bodyAt(n-1) + 1
	}
	binary.BigEndian.PutUint32(e.buf[e.end:], adler)
	e.end += 4
	if len(secrets) > 0 && e.holdsSecret(n, blocks, secrets) {
		e.deflate(n, blocks)
		return
	}
	e.buf[entryHead-2], e.buf[entryHead-1] = zlibStored0, zlibStored1
	e.start = entryHead - 2 - putEntryHeader(e.buf[:entryHead-2], 3, uint64(n))
	e.crc = crc32.ChecksumIEEE(e.buf[e.start:e.end])
}

// holdsSecret reports whether the body, in its blocks, holds one of
// secrets, within a block or across two.
func (e *fileEntry) holdsSecret(n, blocks int, secrets []string) bool {
	if blocks == 1 {
		return holdsSecret(e.buf[entryHead+5:entryHead+5+n], secrets)
	}
	for _, s := range secrets {
		if s == "" {
			continue
		}
		for i := range blocks {
			chunk := e.buf[bodyAt(i*storedMax) : bodyAt(i*storedMax)+min(storedMax, n-i*storedMax)]
			if bytes.Contains(chunk, []byte(s)) {
				return true
			}
			if i == blocks-1 {
				continue
			}
			// The seam: the chunk's last len(s)-1 bytes and the next's first.
			k := min(len(s)-1, len(chunk))
			seam := append([]byte(nil), chunk[len(chunk)-k:]...)
			next := e.buf[bodyAt((i+1)*storedMax):]
			seam = append(seam, next[:min(len(s)-1, n-(i+1)*storedMax)]...)
			if bytes.Contains(seam, []byte(s)) {
				return true
			}
		}
	}
	return false
}

// deflate encodes the body deflated (packEntryBytes, a secret's) as the
// entry.
func (e *fileEntry) deflate(n, blocks int) {
	e.gather.Reset()
	for i := range blocks {
		at := bodyAt(i * storedMax)
		e.gather.Write(e.buf[at : at+min(storedMax, n-i*storedMax)])
	}
	body := bytes.Clone(e.gather.Bytes())
	packEntryBytes(&e.gather, "blob", body, true) // writes to memory: no error
	e.buf = append(e.buf[:0], e.gather.Bytes()...)
	e.start, e.end = 0, len(e.buf)
	e.crc = crc32.ChecksumIEEE(e.buf)
}

// tooLarge is the Skip of the file p over max bytes (st), as classify
// gives it.
func tooLarge(p string, st *syscall.Stat_t, max int64) *Skip {
	return &Skip{Path: p, Reason: ReasonTooLarge, Bytes: st.Size, MTime: time.Unix(st.Mtim.Sec, st.Mtim.Nsec), Limit: max}
}
