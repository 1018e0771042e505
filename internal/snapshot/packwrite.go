package snapshot

// packwrite.go: a first snapshot's objects in one pack (two when large:
// packpair.go), not thousands of loose objects. Contract: a packWriter takes objects from any goroutine
// (put), each once by id, each stored deflated without compression
// (stored blocks: a copy and a checksum, as `tar c` costs; `git gc` at the
// store's next collection compresses them, prune.go) but an object that
// holds a secret value (Options.Secrets: the API key), which is deflated so
// that it never sits readable in the store; finish writes the
// pack's SHA-1 trailer (computed as the pack was written when its count
// was planned, packplan.go, on the pack's own writer goroutine,
// packpipe.go; else the count written and the pack read back) and its
// version-2 index, as git's
// index-pack names them (objects/pack/pack-<checksum>.pack and .idx, the
// index renamed last: git sees the pack whole or not at all), and git reads
// them as its own (packwrite_test.go: verify-pack, fsck). abort removes
// what was written. A pack with no object is not written.

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// putObject stores an object of kind and returns its id.
type putObject func(kind string, body []byte) (string, error)

// toLoose stores objects as loose objects of gitDir (objwrite.go).
func toLoose(gitDir string) putObject {
	return func(kind string, body []byte) (string, error) { return writeObject(gitDir, kind, body) }
}

// packMin is the fewest files a first snapshot stores in a pack.
const packMin = 64

type packWriter struct {
	dir  string // objects/pack
	mu   sync.Mutex
	f    *os.File
	bw   *bufio.Writer
	off  uint64
	seen oidSet // the objects of ents (oidset.go)
	ents []packEntry
	err  error // the first write error: every later put fails with it
	// secrets are values an object must not hold readable (Options.Secrets).
	secrets []string
	// merged are the small packs this one took in (steppack.go).
	merged []string
	// planned is the object count the header gives from the start, sum
	// the SHA-1 of what was written (packplan.go); 0 and nil: unknown.
	planned int
	sum     hash.Hash
	// deflateAll: every blob deflated, not only a secret's (a step's
	// pack, steppack.go: as its loose objects were); trees are not.
	deflateAll bool
	// pipe writes a planned pack on its own goroutine (packpipe.go).
	pipe *packPipe
	// base is the finished pack's path, without .pack or .idx.
	base string
}

type packEntry struct {
	oid [20]byte
	crc uint32
	off uint64
}

// newPackWriter starts a pack in gitDir. planned, when not 0, is the
// most objects the pack will hold (packplan.go): the header says so from
// the start and the pack's SHA-1 is computed as it is written; else the
// count is written, and the pack read back for its SHA-1, by finish.
func newPackWriter(gitDir string, secrets []string, planned int) (*packWriter, error) {
	dir := filepath.Join(gitDir, "objects", "pack")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, "tmp_pack_")
	if err != nil {
		return nil, err
	}
	p := &packWriter{dir: dir, f: f, bw: bufio.NewWriterSize(f, 1<<20), secrets: secrets, planned: planned}
	var hdr [12]byte
	copy(hdr[:], "PACK")
	binary.BigEndian.PutUint32(hdr[4:], 2)
	binary.BigEndian.PutUint32(hdr[8:], uint32(planned))
	if planned > 0 {
		p.sum = sha1.New()
		p.ents = make([]packEntry, 0, planned) // not grown (and copied) entry by entry
	}
	p.write(hdr[:])
	p.off = 12
	if planned > 0 {
		p.pipe = startPipe(p)
	}
	return p, nil
}

// write appends b to the pack (and to its running SHA-1, if planned).
func (p *packWriter) write(b []byte) error {
	if p.sum != nil {
		p.sum.Write(b)
	}
	_, err := p.bw.Write(b)
	return err
}

var packTypes = map[string]byte{"commit": 1, "tree": 2, "blob": 3, "tag": 4}

// packDeflate are reused level-2 compressors, for an object that holds
// a secret value (Options.Secrets): stored blocks (packEntryBytes: a copy
// and a checksum, as `tar c` costs; `git gc` at the store's next
// collection compresses them, prune.go) would keep it readable in the
// store (Go's level 1 too, on short input).
var packDeflate = sync.Pool{New: func() any {
	w, _ := zlib.NewWriterLevel(io.Discard, 2)
	return w
}}

// holdsSecret reports whether body holds one of secrets.
func holdsSecret(body []byte, secrets []string) bool {
	for _, s := range secrets {
		if s != "" && bytes.Contains(body, []byte(s)) {
			return true
		}
	}
	return false
}

// put stores body as an object of kind in the pack. The entry is encoded
// (packEntryBytes) before the pack's lock is taken: only its copy into
// the pack is serial, the hashers encode in parallel.
func (p *packWriter) put(kind string, body []byte) (string, error) {
	oid := objectID(kind, body)
	p.mu.Lock()
	seen, err := p.seen.has(p.ents, oid), p.err
	p.mu.Unlock()
	if err != nil {
		return "", err
	}
	if seen {
		return hexOf(oid), nil
	}
	buf := entryBufs.Get().(*bytes.Buffer)
	if err := packEntryBytes(buf, kind, body, (p.deflateAll && kind == "blob") || holdsSecret(body, p.secrets)); err != nil {
		entryBufs.Put(buf)
		return "", err
	}
	if err := p.putEntry(oid, buf.Bytes(), crc32.ChecksumIEEE(buf.Bytes()), buf.Cap(), func() { entryBufs.Put(buf) }); err != nil {
		return "", err
	}
	return hexOf(oid), nil
}

// putEntry appends the encoded entry ent of the object oid, whose CRC-32
// is crc, unless the pack holds it already; release is called once ent
// (from a buffer of held bytes) is written or not needed (a planned
// pack's writer writes it later: packpipe.go).
func (p *packWriter) putEntry(oid [20]byte, ent []byte, crc uint32, held int, release func()) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil && p.pipe != nil {
		p.err = p.pipe.failed()
	}
	if p.err != nil {
		release()
		return p.err
	}
	if p.seen.has(p.ents, oid) { // put by another hasher meanwhile
		release()
		return nil
	}
	var err error
	if p.pipe != nil {
		err = p.pipe.send(ent, held, release) // in offset order: under p.mu
	} else {
		err = p.write(ent)
		release()
	}
	if err != nil {
		p.err = err
		return err
	}
	p.ents = append(p.ents, packEntry{oid: oid, off: p.off, crc: crc})
	p.seen.add(p.ents, len(p.ents)-1)
	p.off += uint64(len(ent))
	return nil
}

// entryBufs hold pack entries being encoded (a file's size and a little).
var entryBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// packEntryBytes encodes an object of kind holding body as a pack entry
// into buf: its header (type and size, 4 bits then 7 a byte), then body
// in zlib — deflated when secret, else in stored blocks written here
// directly (no compressor's window copy: ≈ what `tar c` costs).
func packEntryBytes(buf *bytes.Buffer, kind string, body []byte, secret bool) error {
	buf.Reset()
	buf.Grow(len(body) + len(body)/65535*5 + 32)
	var hdr [10]byte
	n := putEntryHeader(hdr[:], packTypes[kind], uint64(len(body)))
	buf.Write(hdr[len(hdr)-n:])
	if secret {
		zw := packDeflate.Get().(*zlib.Writer)
		zw.Reset(buf)
		_, err := zw.Write(body)
		if cerr := zw.Close(); err == nil {
			err = cerr
		}
		zw.Reset(io.Discard)
		packDeflate.Put(zw)
		return err
	}
	buf.Write([]byte{0x78, 0x01}) // zlib: deflate, 32K window, no compression
	rest := body
	for {
		chunk := rest[:min(len(rest), 0xffff)]
		rest = rest[len(chunk):]
		final := byte(0)
		if len(rest) == 0 {
			final = 1
		}
		l := uint16(len(chunk))
		buf.Write([]byte{final, byte(l), byte(l >> 8), byte(^l), byte(^l >> 8)})
		buf.Write(chunk)
		if final == 1 {
			break
		}
	}
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], adler32Update(1, body)) // adler.go
	buf.Write(sum[:])
	return nil
}

// putEntryHeader writes a pack entry's header (type, size) ending at
// len(b) and returns its length.
func putEntryHeader(b []byte, typ byte, size uint64) int {
	var hdr [10]byte
	hdr[0] = typ<<4 | byte(size&15)
	size >>= 4
	k := 1
	for size > 0 {
		hdr[k-1] |= 0x80
		hdr[k] = byte(size & 0x7f)
		size >>= 7
		k++
	}
	copy(b[len(b)-k:], hdr[:k])
	return k
}

// abort removes the unfinished pack.
func (p *packWriter) abort() {
	if p.pipe != nil {
		p.pipe.abort()
	}
	p.f.Close()
	os.Remove(p.f.Name())
}

// finish completes the pack and writes its index.
func (p *packWriter) finish() error {
	if p.err != nil {
		p.abort()
		return p.err
	}
	if len(p.ents) == 0 {
		p.abort()
		return nil
	}
	sum, err := p.trailer()
	if err == nil {
		_, err = p.f.WriteAt(sum, int64(p.off))
	}
	if err == nil {
		err = p.f.Chmod(0o444)
	}
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(p.f.Name())
		return err
	}
	base := filepath.Join(p.dir, "pack-"+hex.EncodeToString(sum))
	if err := os.Rename(p.f.Name(), base+".pack"); err != nil {
		os.Remove(p.f.Name())
		return err
	}
	if err := writeReplace(p.dir, base+".idx", packIndex(p.ents, sum), 0o444); err != nil {
		os.Remove(base + ".pack")
		return err
	}
	p.base = base
	// Its objects are written: their list, set and buffer are not held
	// while the rest of an update runs (a first snapshot's second pack
	// finishes beside the index: ≈ 2.5 MB at 100,000 files).
	p.ents, p.seen, p.bw = nil, oidSet{}, nil
	return nil
}

// packIndex is the version-2 index of a pack of ents whose checksum is
// sum.
func packIndex(ents []packEntry, sum []byte) []byte {
	slices.SortFunc(ents, func(a, b packEntry) int { return bytes.Compare(a.oid[:], b.oid[:]) })
	be := binary.BigEndian
	b := make([]byte, 0, 8+256*4+len(ents)*28+2*20) // but the large offsets
	b = append(b, 0xff, 't', 'O', 'c', 0, 0, 0, 2)
	var fan [256]uint32
	for _, e := range ents {
		fan[e.oid[0]]++
	}
	var total uint32
	for i := range fan {
		total += fan[i]
		b = be.AppendUint32(b, total)
	}
	for _, e := range ents {
		b = append(b, e.oid[:]...)
	}
	for _, e := range ents {
		b = be.AppendUint32(b, e.crc)
	}
	var large []uint64
	for _, e := range ents {
		if e.off < 1<<31 {
			b = be.AppendUint32(b, uint32(e.off))
			continue
		}
		b = be.AppendUint32(b, uint32(1<<31|len(large)))
		large = append(large, e.off)
	}
	for _, off := range large {
		b = be.AppendUint64(b, off)
	}
	b = append(b, sum...)
	idxSum := sha1.Sum(b)
	return append(b, idxSum[:]...)
}

// hexOf is an object id in hex.
func hexOf(b [20]byte) string { return hex.EncodeToString(b[:]) }
