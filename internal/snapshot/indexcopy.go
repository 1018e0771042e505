package snapshot

// indexcopy.go: a step's index written from the store's own without
// re-encoding it. Contract: nextRaw reads the next entry of a version-2
// index (the version every index writer of the store writes:
// writeIndexHeader) as the bytes it occupies in the file — position
// independent in version 2, so they are the new index's bytes for an
// unchanged entry — and fills e's stat, id and flags; e.path is not set
// (the path is returned, valid with raw until the next read: no string
// per entry). An index of another version is read by next and encoded
// again (raw nil). A reader made trusted (the walk read the same file in
// this step and checked its checksum) hashes nothing: the new index's
// SHA-1 is computed once, as it is written (goindex.go).

import (
	"bytes"
	"encoding/binary"
	"sync/atomic"
)

// entriesEncoded counts the unchanged entries goPath.update encoded
// again rather than copied (tests).
var entriesEncoded atomic.Int64

// nextRaw reads the next entry into e (its path left unset) and returns
// its bytes in the file and its path; for an index other than version 2,
// raw is nil and e is read whole by next. ok is false at the end or on an
// error (finish reports it).
func (x *indexReader) nextRaw(e *indexEntry) (raw, path []byte, ok bool) {
	if x.version != 2 {
		if !x.next(e) {
			return nil, nil, false
		}
		return nil, []byte(e.path), true
	}
	if x.err != nil || x.i >= x.n {
		return nil, nil, false
	}
	x.i++
	fixed, err := x.r.Peek(62)
	if err != nil {
		x.err = errSeed
		return nil, nil, false
	}
	flags := binary.BigEndian.Uint16(fixed[60:])
	n := int(flags & 0xfff)
	if n == 0xfff || flags&0x4000 != 0 {
		// A path of 4,095 bytes or more, or extended flags (not in
		// version 2): read and encoded again.
		x.i--
		if !x.next(e) {
			return nil, nil, false
		}
		return nil, []byte(e.path), true
	}
	size := (62 + n + 8) &^ 7
	raw, err = x.r.Peek(size)
	if err != nil || raw[62+n] != 0 || bytes.IndexByte(raw[62:62+n], 0) >= 0 {
		x.err = errSeed
		return nil, nil, false
	}
	copy(e.stat[:], raw[:40])
	copy(e.oid[:], raw[40:60])
	e.flags, e.ext = flags, 0
	x.r.Discard(size) // the bytes stay in the buffer until the next read
	return raw, raw[62 : 62+n], true
}
