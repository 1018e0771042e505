package snapshot

// objwrite.go: a snapshot's commit, its modes blob and its ref written in
// Go, as git writes them (no process each). Contract: writeObject stores
// a loose object — objects/xx/yyyy…, zlib of "<kind> <size>\0" + body,
// named by its SHA-1 — through a temporary file (createTemp: read-only
// from its creation) renamed whole, so a
// failure leaves no broken object (an orphan temporary file is removed by
// discardFailed's `git prune`); an object already there is not written
// again. writeRef points refs/… at an object the same way (temp +
// rename), as update-ref does without a reflog (the store logs none).

import (
	"bufio"
	"compress/zlib"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// zlibWriters are reused: a compressor holds ≈ 1 MB of state. Level 2,
// not BestSpeed: Go's level 1 writes short input it cannot shorten as a
// stored block, verbatim, and a key file the user keeps in the tree
// would sit readable in the store (git's objects never hold it so).
var zlibWriters = sync.Pool{New: func() any {
	w, _ := zlib.NewWriterLevel(io.Discard, 2)
	return w
}}

// writeObject stores body as a loose object of kind in gitDir.
func writeObject(gitDir, kind string, body []byte) (string, error) {
	hdr := objectHeader(kind, body)
	oid := hexOf(objectID(kind, body))
	dir := filepath.Join(gitDir, "objects", oid[:2])
	path := filepath.Join(dir, oid[2:])
	if _, err := os.Stat(path); err == nil {
		return oid, nil
	}
	f, err := createTemp(dir, 0o444, true)
	if err != nil {
		return "", err
	}
	bw := bufio.NewWriterSize(f, 32<<10)
	zw := zlibWriters.Get().(*zlib.Writer)
	zw.Reset(bw)
	zw.Write([]byte(hdr))
	_, err = zw.Write(body)
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	zw.Reset(io.Discard)
	zlibWriters.Put(zw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return oid, nil
}

// tempSeq numbers createTemp's files within this process.
var tempSeq atomic.Uint64

// createTemp creates a new file tmp_obj_<pid>_<n> in dir, with perm (the
// umask applied) from the start: no chmod after, and no random name
// tried again and again as os.CreateTemp does. With mkdir, a missing dir
// is created (0755, as git's objects/xx) on the first failure only, not
// looked up before each object. File creation dominates a step's writes
// (≈ 15 objects), so each syscall saved here counts.
func createTemp(dir string, perm os.FileMode, mkdir bool) (*os.File, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, "tmp_obj_"+strconv.Itoa(os.Getpid())+"_"+strconv.FormatUint(tempSeq.Add(1), 36))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		switch {
		case err == nil:
			return f, nil
		case mkdir && try == 0 && errors.Is(err, fs.ErrNotExist):
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, err
			}
		case try < 100 && errors.Is(err, fs.ErrExist):
			// left by a process of the same pid before: the next number
		default:
			return nil, err
		}
	}
}

// objectHeader is the header git hashes and stores before an object's body.
func objectHeader(kind string, body []byte) string {
	return kind + " " + strconv.Itoa(len(body)) + "\x00"
}

// objectID is the id git gives an object of kind holding body.
func objectID(kind string, body []byte) [20]byte {
	h := sha1.New()
	h.Write([]byte(objectHeader(kind, body)))
	h.Write(body)
	var oid [20]byte
	h.Sum(oid[:0])
	return oid
}

// writeReplace writes data to path through a temporary file in dir.
func writeReplace(dir, path string, data []byte, perm os.FileMode) error {
	f, err := createTemp(dir, perm, false)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// writeRef points ref (refs/…) at oid in gitDir.
func writeRef(gitDir, ref, oid string) error {
	path := filepath.Join(gitDir, filepath.FromSlash(ref))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return writeReplace(filepath.Dir(path), path, []byte(oid+"\n"), 0o644)
}

// commitBody is the commit object commit-tree writes for tree and
// message, by the store's author and committer (gitcmd.Private), now.
func commitBody(tree, message string, now time.Time) []byte {
	stamp := fmt.Sprintf("%d %s", now.Unix(), now.Format("-0700"))
	return []byte("tree " + tree + "\n" +
		"author agent <agent@localhost> " + stamp + "\n" +
		"committer agent <agent@localhost> " + stamp + "\n\n" + message)
}
