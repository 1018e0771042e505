package snapshot

// packplan.go: a first snapshot's pack hashed as it is written, not read
// back. A pack's header gives its object count and its trailer is the
// SHA-1 of everything before, header first: with the count known only at
// the end, the whole pack had to be read again (142 MB for a 13,000-file
// tree). Contract: the first snapshot knows before it stores anything the
// most objects it can write — a blob per path to store and a tree per
// directory on their way, plus the root (plannedObjects) — and starts the
// pack with that count (newPackWriter's planned); finish pads a pack that
// holds fewer (a file skipped, two files alike) with small filler blobs,
// which no tree names (the store's next collection drops them, prune.go),
// so the running SHA-1 is the trailer. A pack that holds more than planned
// (never, if the plan is right) is finished as before: its count written
// and the pack read back.

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"hash/crc32"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
)

// packReadBacks counts the packs read back for their SHA-1 (tests).
var packReadBacks atomic.Int64

// plannedObjects is the most objects storing paths (sorted or not) and
// their trees can write: a blob each, a tree for each directory on their
// way, and the root tree.
func plannedObjects(paths []string) int {
	dirs := map[string]bool{}
	for _, p := range paths {
		for i := strings.LastIndexByte(p, '/'); i > 0; i = strings.LastIndexByte(p[:i], '/') {
			if dirs[p[:i]] {
				break
			}
			dirs[p[:i]] = true
		}
	}
	return len(paths) + len(dirs) + 1
}

// fillerBody is the i-th filler blob's content.
func fillerBody(i int) []byte {
	return []byte("agent: pack filler " + strconv.Itoa(i) + "\n")
}

// trailer flushes the pack and returns its SHA-1, its count in place:
// a planned pack padded to its count, the sum computed as it was written;
// else the count written and the pack read back.
func (p *packWriter) trailer() ([]byte, error) {
	planned := p.sum != nil && len(p.ents) <= p.planned
	var err error
	if planned {
		err = p.putFillers()
	}
	if p.pipe != nil { // all queued written (packpipe.go), even on error
		if derr := p.pipe.drain(); err == nil {
			err = derr
		}
	}
	if err != nil {
		return nil, err
	}
	if planned {
		if err := p.bw.Flush(); err != nil {
			return nil, err
		}
		return p.sum.Sum(nil), nil
	}
	err = p.bw.Flush()
	var cnt [4]byte
	binary.BigEndian.PutUint32(cnt[:], uint32(len(p.ents)))
	if err == nil {
		_, err = p.f.WriteAt(cnt[:], 8)
	}
	h := sha1.New()
	if err == nil {
		packReadBacks.Add(1)
		_, err = io.Copy(h, io.NewSectionReader(p.f, 0, int64(p.off)))
	}
	return h.Sum(nil), err
}

// putFillers pads the pack to its planned count with filler blobs, their
// entries encoded into one buffer and queued as one write (not a put
// each: the pack's writer woken for each).
func (p *packWriter) putFillers() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil || len(p.ents) >= p.planned {
		return p.err
	}
	var all, one bytes.Buffer
	for i := 0; len(p.ents) < p.planned; i++ {
		body := fillerBody(i)
		oid := objectID("blob", body)
		if p.seen.has(p.ents, oid) { // a file holds this very text
			continue
		}
		if err := packEntryBytes(&one, "blob", body, p.deflateAll || holdsSecret(body, p.secrets)); err != nil {
			return err
		}
		p.ents = append(p.ents, packEntry{oid: oid, off: p.off, crc: crc32.ChecksumIEEE(one.Bytes())})
		p.seen.add(p.ents, len(p.ents)-1)
		p.off += uint64(one.Len())
		all.Write(one.Bytes())
	}
	if p.pipe != nil {
		p.err = p.pipe.send(all.Bytes(), all.Cap(), func() {})
	} else {
		p.err = p.write(all.Bytes())
	}
	return p.err
}
