package snapshot

// indexread.go: git's index file, read one entry at a time (versions 2–4)
// from a stream. The seed (seed.go), the modes (modes.go) and the walk
// (walk.go) share it. Contract: next hands out the entries in the file's
// order (git's: paths sorted bytewise) and finish reads the extensions and
// checks the trailing SHA-1 of everything read (hashed as the buffer
// fills, not entry by entry: tailHasher); a reader never holds more
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
	sum     *tailHasher
	version uint32
	n, i    int
	prev    []byte
	err     error
	// trusted: the file's checksum was checked by an earlier reader of
	// the same file (the walk): it is not compared again (indexcopy.go).
	trusted bool
}

// tailHasher hashes what is read through it but its last 20 bytes (an
// index's trailing checksum, held back until more comes): the bytes are
// hashed as the reader's buffer fills, 64 KiB at a time, not entry by
// entry.
type tailHasher struct {
	r     io.Reader
	h     hash.Hash
	held  [20]byte
	nheld int
}

func (t *tailHasher) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if t.h == nil { // trusted: nothing to compare
		return n, err
	}
	if total := t.nheld + n; total <= len(t.held) {
		copy(t.held[t.nheld:], p[:n])
		t.nheld = total
	} else {
		out := total - len(t.held) // leave the held part, then p
		fromHeld := min(out, t.nheld)
		t.h.Write(t.held[:fromHeld])
		t.h.Write(p[:out-fromHeld])
		var held [20]byte
		k := copy(held[:], t.held[fromHeld:t.nheld])
		copy(held[k:], p[out-fromHeld:n])
		t.held, t.nheld = held, len(held)
	}
	return n, err
}

// trust makes x a reader of a file whose checksum an earlier reader
// checked: what is left is not hashed, nor compared.
func (x *indexReader) trust() {
	x.trusted = true
	x.sum.h = nil
}

// newIndexReader reads the header of the index in r.
func newIndexReader(r io.Reader) (*indexReader, error) {
	sum := &tailHasher{r: r, h: sha1.New()}
	x := &indexReader{r: bufio.NewReaderSize(sum, 64<<10), sum: sum}
	hdr, err := x.r.Peek(12)
	if err != nil || string(hdr[:4]) != "DIRC" {
		return nil, errSeed
	}
	x.version = binary.BigEndian.Uint32(hdr[4:])
	if x.version < 2 || x.version > 4 {
		return nil, errSeed
	}
	x.n = int(binary.BigEndian.Uint32(hdr[8:]))
	x.r.Discard(12)
	return x, nil
}

// next reads the next entry into e, false at the end or on an error (then
// finish reports it). e.path is a new string each time.
func (x *indexReader) next(e *indexEntry) bool {
	p, ok := x.nextPath(e)
	if ok {
		e.path = string(p)
	}
	return ok
}

// nextPath is next without e.path: the path is returned, valid until the
// next read (no string per entry).
func (x *indexReader) nextPath(e *indexEntry) ([]byte, bool) {
	if x.err != nil || x.i >= x.n {
		return nil, false
	}
	x.i++
	fixed, err := x.r.Peek(62)
	if err != nil {
		x.err = errSeed
		return nil, false
	}
	copy(e.stat[:], fixed[:40])
	copy(e.oid[:], fixed[40:60])
	e.flags = binary.BigEndian.Uint16(fixed[60:])
	e.ext = 0
	x.r.Discard(62)
	size := 62
	if e.flags&0x4000 != 0 {
		ext, err := x.r.Peek(2)
		if x.version < 3 || err != nil {
			x.err = errSeed
			return nil, false
		}
		e.ext = binary.BigEndian.Uint16(ext)
		x.r.Discard(2)
		size += 2
	}
	if x.version == 4 {
		var vb [10]byte
		nb := 0
		for {
			c, err := x.r.ReadByte()
			if err != nil || nb == len(vb) {
				x.err = errSeed
				return nil, false
			}
			vb[nb] = c
			nb++
			if c&128 == 0 {
				break
			}
		}
		strip, w := varint(vb[:nb])
		if w == 0 || strip > uint64(len(x.prev)) {
			x.err = errSeed
			return nil, false
		}
		name, ok := x.name()
		if !ok {
			return nil, false
		}
		x.prev = append(x.prev[:len(x.prev)-int(strip)], name...)
		return x.prev, true
	}
	name, ok := x.name()
	if !ok {
		return nil, false
	}
	x.prev = append(x.prev[:0], name...)
	// NUL padding to a multiple of 8: the name's NUL is the first.
	pad := (size+len(name)+8)&^7 - size - len(name) - 1
	if n, err := x.r.Discard(pad); err != nil || n != pad {
		x.err = errSeed
		return nil, false
	}
	return x.prev, true
}

// name reads a NUL-terminated path (the NUL consumed, not returned); the
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
	return b[:len(b)-1], true
}

// finish reads the rest of the file after the entries (each entry must
// have been read) and returns the cache-tree extension's data, nil when
// there is none; an error when the file is not one the reader takes.
func (x *indexReader) finish() ([]byte, error) {
	for x.err == nil && x.i < x.n {
		var e indexEntry
		x.nextPath(&e)
	}
	if x.err != nil {
		return nil, x.err
	}
	rest, err := io.ReadAll(x.r)
	if err != nil || len(rest) < 20 || !x.trusted && x.sum.nheld != len(x.sum.held) {
		return nil, errSeed
	}
	body, sum := rest[:len(rest)-20], rest[len(rest)-20:]
	if !x.trusted && !bytes.Equal(x.sum.h.Sum(nil), sum) {
		return nil, errSeed
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

// indexWriter buffers an index file's bytes and hashes them a buffer at a
// time on their way out, not entry by entry; finish writes the checksum.
type indexWriter struct {
	*bufio.Writer
	f io.Writer
	h hash.Hash
}

func newIndexWriter(f io.Writer) *indexWriter {
	h := sha1.New()
	return &indexWriter{Writer: bufio.NewWriterSize(io.MultiWriter(f, h), 256<<10), f: f, h: h}
}

// finish writes what is buffered and the checksum of all that was written.
func (w *indexWriter) finish() error {
	if err := w.Flush(); err != nil {
		return err
	}
	_, err := w.f.Write(w.h.Sum(nil))
	return err
}
