package snapshot

// indexread.go: git's index file, read one entry at a time (versions 2–4)
// from a stream. The seed (seed.go), the modes (modes.go) and the walk
// (walk.go) share it. Contract: next hands out the entries in the file's
// order (git's: paths sorted bytewise) and finish reads the extensions and
// checks the trailing SHA-1 of everything read; a reader never holds more
// than one entry and the extensions, so a 100,000-file index (≈ 10 MB) is
// never in memory whole. Anything it does not know — a split or sparse
// index, a version other than 2–4, a short or corrupt file — is errSeed.

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"hash"
	"io"
)

// indexReader reads an index file's entries in order.
type indexReader struct {
	r       *bufio.Reader
	h       hash.Hash
	version uint32
	n, i    int
	prev    []byte
	err     error
	// trusted: the file's checksum was checked by an earlier reader of
	// the same file (the walk): it is not hashed again (indexcopy.go).
	trusted bool
}

// newIndexReader reads the header of the index in r.
func newIndexReader(r io.Reader) (*indexReader, error) {
	x := &indexReader{r: bufio.NewReaderSize(r, 64<<10), h: sha1.New()}
	var hdr [12]byte
	if !x.full(hdr[:]) || string(hdr[:4]) != "DIRC" {
		return nil, errSeed
	}
	x.version = binary.BigEndian.Uint32(hdr[4:])
	if x.version < 2 || x.version > 4 {
		return nil, errSeed
	}
	x.n = int(binary.BigEndian.Uint32(hdr[8:]))
	return x, nil
}

// full reads len(b) bytes into b and hashes them.
func (x *indexReader) full(b []byte) bool {
	if _, err := io.ReadFull(x.r, b); err != nil {
		x.err = errSeed
		return false
	}
	if !x.trusted {
		x.h.Write(b)
	}
	return true
}

// next reads the next entry into e, false at the end or on an error (then
// finish reports it). e.path is a new string each time.
func (x *indexReader) next(e *indexEntry) bool {
	if x.err != nil || x.i >= x.n {
		return false
	}
	x.i++
	var fixed [62]byte
	if !x.full(fixed[:]) {
		return false
	}
	copy(e.stat[:], fixed[:40])
	copy(e.oid[:], fixed[40:60])
	e.flags = binary.BigEndian.Uint16(fixed[60:])
	e.ext = 0
	size := 62
	if e.flags&0x4000 != 0 {
		var ext [2]byte
		if x.version < 3 || !x.full(ext[:]) {
			x.err = errSeed
			return false
		}
		e.ext = binary.BigEndian.Uint16(ext[:])
		size += 2
	}
	if x.version == 4 {
		var vb [10]byte
		nb := 0
		for {
			c, err := x.r.ReadByte()
			if err != nil || nb == len(vb) {
				x.err = errSeed
				return false
			}
			vb[nb] = c
			nb++
			if c&128 == 0 {
				break
			}
		}
		if !x.trusted {
			x.h.Write(vb[:nb])
		}
		strip, w := varint(vb[:nb])
		if w == 0 || strip > uint64(len(x.prev)) {
			x.err = errSeed
			return false
		}
		name, ok := x.name()
		if !ok {
			return false
		}
		x.prev = append(x.prev[:len(x.prev)-int(strip)], name...)
		e.path = string(x.prev)
		return true
	}
	name, ok := x.name()
	if !ok {
		return false
	}
	e.path = string(name)
	x.prev = append(x.prev[:0], name...)
	// NUL padding to a multiple of 8: the name's NUL is the first.
	pad := (size+len(name)+8)&^7 - size - len(name) - 1
	var zeros [8]byte
	return x.full(zeros[:pad])
}

// name reads a NUL-terminated path (the NUL hashed, not returned); the
// slice is valid until the next read.
func (x *indexReader) name() ([]byte, bool) {
	b, err := x.r.ReadSlice(0)
	if err == bufio.ErrBufferFull {
		long := append([]byte{}, b...)
		for err == bufio.ErrBufferFull {
			b, err = x.r.ReadSlice(0)
			long = append(long, b...)
		}
		b = long
	}
	if err != nil {
		x.err = errSeed
		return nil, false
	}
	if !x.trusted {
		x.h.Write(b)
	}
	return b[:len(b)-1], true
}

// finish reads the rest of the file after the entries (each entry must
// have been read) and returns the cache-tree extension's data, nil when
// there is none; an error when the file is not one the reader takes.
func (x *indexReader) finish() ([]byte, error) {
	for x.err == nil && x.i < x.n {
		var e indexEntry
		x.next(&e)
	}
	if x.err != nil {
		return nil, x.err
	}
	rest, err := io.ReadAll(x.r)
	if err != nil || len(rest) < 20 {
		return nil, errSeed
	}
	body, sum := rest[:len(rest)-20], rest[len(rest)-20:]
	if !x.trusted {
		x.h.Write(body)
		if !bytes.Equal(x.h.Sum(nil), sum) {
			return nil, errSeed
		}
	}
	// Extensions: a split index ("link") holds only part of the entries, a
	// sparse one ("sdir") directories in place of files.
	var tree []byte
	for off := 0; off+8 <= len(body); {
		sig := string(body[off : off+4])
		size := int(binary.BigEndian.Uint32(body[off+4:]))
		if sig == "link" || sig == "sdir" || off+8+size > len(body) {
			return nil, errSeed
		}
		if sig == "TREE" {
			tree = body[off+8 : off+8+size]
		}
		off += 8 + size
	}
	return tree, nil
}

// writeIndexHeader writes a version-2 index's header for n entries: the
// index writers' (goindex.go, seed.go) first 12 bytes.
func writeIndexHeader(w io.Writer, n int) {
	var hdr [12]byte
	copy(hdr[:], "DIRC")
	binary.BigEndian.PutUint32(hdr[4:], 2)
	binary.BigEndian.PutUint32(hdr[8:], uint32(n))
	w.Write(hdr[:])
}
