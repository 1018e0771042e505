package snapshot

// seed.go: a store's first snapshot in a git repository costs a stat walk,
// not a read of every file. Contract:
//
//   - Read only. The user's index file is read (not through git: no
//     process opens the user's repository), twice and one entry at a time,
//     never held whole (indexread.go), and the store's own index is
//     written from its entries, which the first walk reads as they are
//     written (seedfeed.go); the user's object directory is
//     borrowed (GIT_ALTERNATE_OBJECT_DIRECTORIES), so git reads the blobs the user's
//     repository already holds and never stores them again. Nothing is
//     written under the user's .git, and no git command runs there.
//     The store names the user's object directory in agent-borrow (not
//     objects/info/alternates: git would touch the user's objects when it
//     writes one again, see gitcmd.Private.Borrow).
//   - The seeded entries are only a stat cache: the walk (walk.go) still
//     compares each file's stat data with the entry, and every file that
//     differs is read and stored (in the store). Entries git could not trust are left out,
//     and those files are then read like untracked ones: conflicted
//     (stage ≠ 0), intent-to-add, gitlinks (nested repositories), sparse
//     directory entries, files over Options.MaxFileBytes, files whose index
//     size is not their blob's size (a clean filter such as Git LFS or an
//     eol conversion stored other bytes than the file's), and files the
//     store excludes. assume-unchanged and skip-worktree flags are dropped,
//     so a file the user's git was told to ignore changes in is compared
//     like any other. An entry as new as the user's index (racily clean)
//     has its size cleared, so git reads it.
//   - Anything unexpected — a split index, a sparse index, an index format
//     other than 2–4, SHA-256 objects, a checksum that does not match —
//     means no seeding: the first snapshot reads every file, as before.
//   - Borrowed objects. The store refers to blobs in the user's object
//     database; a `git gc --prune` there can delete a blob that neither
//     the user's refs nor index reach any more (git keeps unreachable
//     objects two weeks by default). A restore then refuses before it
//     touches anything, naming each file it cannot bring back (forced:
//     ReasonGone, and the rest restored); a diff still comes, the file
//     marked Pruned and its text "content no longer available" (gone.go).

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/ctxloop/agent/internal/safefile"
)

// userRepo is the user's repository around a work tree, as found on disk.
type userRepo struct {
	gitDir  string // the repository's git directory, and its common one
	common  string
	index   string // the index file
	objects string // the object directory
	prefix  string // the work tree's path in the repository ("" or "sub/dir/")
}

// findUserRepo looks for the git repository holding work (work itself or
// an ancestor with a .git directory or .git file), reading only files.
func findUserRepo(work string) (userRepo, bool) {
	dir := work
	for {
		dotGit := filepath.Join(dir, ".git")
		if fi, err := os.Lstat(dotGit); err == nil {
			gitDir, ok := resolveGitDir(dotGit, fi)
			if !ok {
				return userRepo{}, false
			}
			common := gitDir
			if b, err := readRepoFile(filepath.Join(gitDir, "commondir"), gitDir); err == nil {
				c := strings.TrimSpace(string(b))
				if !filepath.IsAbs(c) {
					c = filepath.Join(gitDir, c)
				}
				common = c
			}
			if cfg, err := readRepoFile(filepath.Join(common, "config"), common); err == nil &&
				bytes.Contains(bytes.ToLower(cfg), []byte("objectformat")) {
				return userRepo{}, false // SHA-256 (or a format we do not read)
			}
			rel, err := filepath.Rel(dir, work)
			if err != nil {
				return userRepo{}, false
			}
			prefix := ""
			if rel != "." {
				prefix = filepath.ToSlash(rel) + "/"
			}
			return userRepo{
				gitDir:  gitDir,
				common:  common,
				index:   filepath.Join(gitDir, "index"),
				objects: filepath.Join(common, "objects"),
				prefix:  prefix,
			}, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return userRepo{}, false
		}
		dir = parent
	}
}

// resolveGitDir follows a .git file ("gitdir: <path>") to the directory.
func resolveGitDir(dotGit string, fi os.FileInfo) (string, bool) {
	if fi.IsDir() {
		return dotGit, true
	}
	if !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return "", false
	}
	b, err := readRepoFile(dotGit, filepath.Dir(dotGit))
	if err != nil {
		return "", false
	}
	p, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok {
		return "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(dotGit), p)
	}
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		return "", false
	}
	return p, true
}

// indexEntry is one entry of an index, its fixed part kept as read.
type indexEntry struct {
	stat  [40]byte // ctime, mtime, dev, ino, mode, uid, gid, size
	oid   [20]byte
	flags uint16
	ext   uint16
	path  string
}

func (e *indexEntry) mode() uint32 { return binary.BigEndian.Uint32(e.stat[24:]) }
func (e *indexEntry) size() uint32 { return binary.BigEndian.Uint32(e.stat[36:]) }
func (e *indexEntry) mtime() (uint32, uint32) {
	return binary.BigEndian.Uint32(e.stat[8:]), binary.BigEndian.Uint32(e.stat[12:])
}

// errSeed says the user's index is one seeding does not take.
var errSeed = errors.New("index not usable for seeding")

// readIndex parses an index file of version 2, 3 or 4: its entries, and
// its cache-tree extension's data (nil when it has none).
func readIndex(data []byte) ([]indexEntry, []byte, error) {
	var entries []indexEntry
	tree, err := walkIndex(data, func(e *indexEntry) { entries = append(entries, *e) })
	if err != nil {
		return nil, nil, err
	}
	return entries, tree, nil
}

// walkIndex hands each entry of an index file to fn (which must not keep
// the pointer) and returns the cache-tree extension's data: the whole
// index is never held as entries (100,000 of them are ~10 MB).
func walkIndex(data []byte, fn func(*indexEntry)) ([]byte, error) {
	x, err := newIndexReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	var e indexEntry
	for x.next(&e) {
		fn(&e)
	}
	return x.finish()
}

// simplePattern reports whether excludedBy matches the gitignore pattern p
// as git does: a name or a path, without wildcards, escapes or negation.
func simplePattern(p string) bool {
	return p != "" && !strings.ContainsAny(p, "*?[\\!# ") && !strings.Contains(strings.Trim(p, "/"), "//") && strings.Trim(p, "/") != ""
}

// excludedBy reports whether the file rel is excluded by one of the simple
// patterns: "name" any component, "name/" any directory, "a/b" or "/a"
// anchored at the work tree (a file or a directory), "a/b/" a directory.
func excludedBy(patterns []string, rel string) bool {
	return compileExcludes(patterns).match(rel)
}

// excludeMatcher is excludedBy's patterns made ready for many paths:
// each path's components looked up once, not once per pattern.
type excludeMatcher struct {
	name     map[string]bool // "name": any component
	dirName  map[string]bool // "name/": any component but the last
	anchored []anchoredPattern
}

type anchoredPattern struct {
	body    string // without the slashes around it
	dirOnly bool
}

func compileExcludes(patterns []string) *excludeMatcher {
	m := &excludeMatcher{name: map[string]bool{}, dirName: map[string]bool{}}
	for _, p := range patterns {
		dirOnly := strings.HasSuffix(p, "/")
		body := strings.TrimSuffix(p, "/")
		switch {
		case strings.Contains(body, "/"):
			m.anchored = append(m.anchored, anchoredPattern{strings.TrimPrefix(body, "/"), dirOnly})
		case dirOnly:
			m.dirName[body] = true
		default:
			m.name[body] = true
		}
	}
	return m
}

func (m *excludeMatcher) match(rel string) bool { return matchExcluded(m, rel) }

// matchBytes is match of a path read in place (indexReader.nextPath): no
// string made of it.
func (m *excludeMatcher) matchBytes(rel []byte) bool { return matchExcluded(m, rel) }

func matchExcluded[P string | []byte](m *excludeMatcher, rel P) bool {
	for rest := rel; ; {
		i := 0
		for i < len(rest) && rest[i] != '/' {
			i++
		}
		comp, more := rest[:i], i < len(rest)
		if m.name[string(comp)] || more && m.dirName[string(comp)] {
			return true
		}
		if !more {
			break
		}
		rest = rest[i+1:]
	}
	for _, a := range m.anchored {
		if len(rel) >= len(a.body) && string(rel[:len(a.body)]) == a.body &&
			(len(rel) > len(a.body) && rel[len(a.body)] == '/' || !a.dirOnly && len(rel) == len(a.body)) {
			return true
		}
	}
	return false
}

// excludeMemo is match for paths that come directory by directory (an
// index's, sorted): a directory's answer is kept while its files come,
// each file's own name then looked up alone.
type excludeMemo struct {
	m      *excludeMatcher
	dir    []byte
	dirHit bool
	valid  bool
}

func (x *excludeMemo) match(rel []byte) bool {
	i := bytes.LastIndexByte(rel, '/')
	if i < 0 {
		return x.m.matchBytes(rel)
	}
	if dir := rel[:i]; !x.valid || !bytes.Equal(dir, x.dir) {
		x.dir, x.dirHit, x.valid = append(x.dir[:0], dir...), x.m.matchDir(dir), true
	}
	if x.dirHit || x.m.name[string(rel[i+1:])] {
		return true
	}
	for _, a := range x.m.anchored {
		if !a.dirOnly && string(rel) == a.body {
			return true
		}
	}
	return false
}

// matchDir reports whether a file in dir is excluded by dir alone: one
// of its components by name, or an anchored pattern naming it or an
// ancestor.
func (m *excludeMatcher) matchDir(dir []byte) bool {
	for rest := dir; ; {
		i := bytes.IndexByte(rest, '/')
		if i < 0 {
			i = len(rest)
		}
		if m.name[string(rest[:i])] || m.dirName[string(rest[:i])] {
			return true
		}
		if i == len(rest) {
			break
		}
		rest = rest[i+1:]
	}
	for _, a := range m.anchored {
		if len(dir) >= len(a.body) && string(dir[:len(a.body)]) == a.body && (len(dir) == len(a.body) || dir[len(a.body)] == '/') {
			return true
		}
	}
	return false
}

// varint reads git's offset encoding of index version 4.
func varint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	val := uint64(c & 127)
	i := 1
	for c&128 != 0 {
		if i >= len(b) || i > 9 {
			return 0, 0
		}
		val++
		c = b[i]
		i++
		val = val<<7 + uint64(c&127)
	}
	return val, i
}

// writeIndex encodes entries as an index of version 2, flags cleared but
// the name length, with tree (nil: none) as its cache-tree.
func writeIndex(entries []indexEntry, tree *cacheTree) []byte {
	var b bytes.Buffer
	encodeIndex(&b, entries, tree)
	return b.Bytes()
}

// writeIndexFile writes writeIndex's bytes to path without holding them.
func writeIndexFile(path string, entries []indexEntry, tree *cacheTree) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 256<<10)
	encodeIndex(w, entries, tree)
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeIndexStream writes an index of n entries, which each hands to
// put in order, and tree (nil: none) to path, holding none of them.
func writeIndexStream(path string, n int, tree *cacheTree, each func(put func(*indexEntry)) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	w := newIndexWriter(f)
	writeIndexHeader(w, n)
	count := 0
	err = each(func(e *indexEntry) {
		count++
		writeEntry(w, e)
	})
	if err == nil && count != n {
		err = errSeed
	}
	if err == nil {
		writeTreeExt(w, tree)
		err = w.finish()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeEntry encodes e as a version 2 entry, flags cleared but the name
// length.
func writeEntry(w io.Writer, e *indexEntry) {
	n := 62 + len(e.path)
	size := (n + 8) &^ 7 // 1 to 8 NULs after the name
	var b []byte
	if iw, ok := w.(*indexWriter); ok && iw.Available() >= size {
		b = iw.AvailableBuffer() // encoded in place: no buffer per entry
	} else {
		b = make([]byte, 0, size)
	}
	b = append(b, e.stat[:]...)
	b = append(b, e.oid[:]...)
	b = binary.BigEndian.AppendUint16(b, uint16(min(len(e.path), 0xfff)))
	b = append(b, e.path...)
	var zeros [8]byte
	b = append(b, zeros[:size-n]...)
	w.Write(b)
}

// writeTreeExt encodes tree (nil: nothing) as the TREE extension.
func writeTreeExt(w io.Writer, tree *cacheTree) {
	if tree == nil {
		return
	}
	var ext bytes.Buffer
	tree.encode(&ext, true)
	var eh [8]byte
	copy(eh[:], "TREE")
	binary.BigEndian.PutUint32(eh[4:], uint32(ext.Len()))
	w.Write(eh[:])
	w.Write(ext.Bytes())
}

func encodeIndex(out io.Writer, entries []indexEntry, tree *cacheTree) {
	h := sha1.New()
	w := io.MultiWriter(out, h)
	var hdr [12]byte
	copy(hdr[:], "DIRC")
	binary.BigEndian.PutUint32(hdr[4:], 2)
	binary.BigEndian.PutUint32(hdr[8:], uint32(len(entries)))
	w.Write(hdr[:])
	for i := range entries {
		writeEntry(w, &entries[i])
	}
	writeTreeExt(w, tree)
	out.Write(h.Sum(nil))
}

// mightConvert reports whether git could have stored other bytes than a
// file's for some entry: the repository has attributes (a clean filter
// such as Git LFS, an eol conversion) or a configuration that sets them
// or converts line ends. Only then does the seed compare each blob's size
// with the file's (sameSizeBlobs), which reads every object's header.
func mightConvert(repo userRepo, hasAttrsFile bool) bool {
	if hasAttrsFile {
		return true
	}
	// entries are relative to the work tree: an attributes file above it
	// in the repository counts too.
	if repo.prefix != "" {
		return true
	}
	if fi, err := os.Stat(filepath.Join(repo.common, "info", "attributes")); err == nil && fi.Size() > 0 {
		return true
	}
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	files := []string{
		filepath.Join(repo.common, "config"), filepath.Join(repo.gitDir, "config.worktree"),
		"/etc/gitconfig", filepath.Join(xdg, "git", "config"), filepath.Join(xdg, "git", "attributes"),
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	for _, f := range files {
		b, err := readRepoFile(f, filepath.Dir(f))
		if err != nil {
			continue
		}
		low := bytes.ToLower(b)
		for _, word := range []string{"autocrlf", "eol", "attributesfile", "filter", "include", "text"} {
			if bytes.Contains(low, []byte(word)) {
				return true
			}
		}
		if strings.HasSuffix(f, "attributes") && len(bytes.TrimSpace(b)) > 0 {
			return true
		}
	}
	return false
}

// seedPassHook, when set (tests), runs between the seed's two passes over
// the user's index.
var seedPassHook func()

// noSeed, when set (benchmarks), makes a store read every file as it
// would outside a repository.
var noSeed bool

// seedIndex writes the store's index from the user's, when the store has
// none yet, and names the user's objects in the store's alternates. It
// reports whether it seeded; on any doubt it leaves the store as it was.
// The store's copy of the valid trees (storeTrees) is written alongside
// the caller's walk: wait (nil when there is none) says how it went, and
// must be called before the lock is let go. walking: the caller walks
// with goPath.walk next; it may then be handed a feed (not nil) to walk
// with, the store's index being written while it reads (seedfeed.go).
func (s *Store) seedIndex(ctx context.Context, walking bool) (feed *seedFeed, wait func() error) {
	if noSeed {
		return nil, nil
	}
	if _, err := os.Lstat(s.git.IndexFile); err == nil {
		return nil, nil
	}
	repo, ok := findUserRepo(s.workTree)
	if !ok {
		return nil, nil
	}
	if fi, err := os.Stat(repo.objects); err != nil || !fi.IsDir() {
		return nil, nil
	}
	ifi, err := os.Stat(repo.index)
	if err != nil || !ifi.Mode().IsRegular() {
		return nil, nil
	}
	idxSec, idxNsec := uint32(ifi.ModTime().Unix()), uint32(ifi.ModTime().Nanosecond())
	simple := true
	for _, p := range s.excludes {
		simple = simple && simplePattern(p)
	}
	excluded := compileExcludes(s.excludes)
	// The user's index is read twice, one entry at a time (indexread.go),
	// never held: once to count and check what is kept, once to write it
	// (while the walk reads the entries: seedfeed.go).
	var dropped []string // their directories' trees are not the store's
	var sizes []blobSize // the kept entries' blobs and sizes, in order
	hasAttrs := false
	prefix := []byte(repo.prefix)
	// The first pass makes no string per entry (nextPath), the second one
	// per kept entry: its path, which the trees built keep (seedtrees.go).
	forKept := func(fn func(k *indexEntry)) ([]byte, error) {
		f, info, err := safefile.Open(repo.index, repo.gitDir)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if info.Size() > maxRepoFileBytes {
			return nil, errSeed
		}
		x, err := newIndexReader(f)
		if err != nil {
			return nil, err
		}
		memo := excludeMemo{m: excluded}
		var e indexEntry
		for {
			path, ok := x.nextPath(&e)
			if !ok {
				break
			}
			if !bytes.HasPrefix(path, prefix) || len(path) == len(prefix) {
				continue
			}
			rel := path[len(prefix):]
			switch {
			case e.flags&0x3000 != 0, // conflicted: a path in conflict has no stage 0
				e.ext&0x2000 != 0, // intent-to-add: no content yet
				e.mode() != 0o100644 && e.mode() != 0o100755 && e.mode() != 0o120000, // gitlinks, sparse directories
				int64(e.size()) > s.maxBytes,
				simple && memo.match(rel):
				if fn == nil {
					dropped = append(dropped, string(rel))
				}
				continue
			}
			if sec, nsec := e.mtime(); sec > idxSec || sec == idxSec && nsec >= idxNsec {
				binary.BigEndian.PutUint32(e.stat[36:], 0) // racily clean: git reads it
			}
			if fn != nil {
				e.path = string(rel) // the one string of each kept entry
				fn(&e)
				continue
			}
			if sizes == nil {
				sizes = make([]blobSize, 0, x.n)
			}
			sizes = append(sizes, blobSize{e.oid, e.size()})
			if bytes.Equal(rel, []byte(".gitattributes")) || bytes.HasSuffix(rel, []byte("/.gitattributes")) {
				hasAttrs = true
			}
		}
		return x.finish()
	}
	treeExt, err := forKept(nil)
	if err != nil {
		return nil, nil
	}
	var tree *cacheTree
	if treeExt != nil {
		if t, err := parseCacheTree(treeExt); err == nil {
			tree = t.at(repo.prefix)
		}
	}
	treeExt = nil
	if tree != nil {
		for _, rel := range dropped {
			tree.invalidate(rel)
		}
	}
	dropped = nil
	if len(sizes) == 0 {
		return nil, nil
	}
	// The user's objects are borrowed, read only (gitcmd.Private.Borrow):
	// named in the store, for every later process too.
	if err := os.WriteFile(s.borrowFile(), []byte(repo.objects+"\n"), 0o600); err != nil {
		return nil, nil
	}
	s.git.Borrow = repo.objects
	var bad []bool // by kept entry: its blob is not the file's size
	n := len(sizes)
	if mightConvert(repo, hasAttrs) {
		bad, err = s.sameSizeBlobs(ctx, sizes)
		for _, b := range bad {
			if b {
				n--
			}
		}
	}
	sizes = nil
	if err != nil || n == 0 {
		os.Remove(s.borrowFile())
		s.git.Borrow = ""
		return nil, nil
	}
	tmp := s.git.IndexFile + ".seed"
	var built *seedTrees // the trees, built from the entries (seedtrees.go)
	if tree != nil {
		built = newSeedTrees(tree)
	}
	if seedPassHook != nil {
		seedPassHook()
	}
	var trees [][]byte
	// treesStored is wait's answer once storeTrees returned err: on an
	// error the seed is undone (the next snapshot seeds again).
	treesStored := func(err error) error {
		if err == nil {
			return nil
		}
		os.Remove(s.git.IndexFile)
		os.Remove(s.borrowFile())
		s.git.Borrow = ""
		return fmt.Errorf("snapshot %s: copying the repository's trees: %w", s.workTree, err)
	}
	// writeSeed writes the store's index from the kept entries (the
	// second pass), handing each to feed too when there is one.
	writeSeed := func(feed *seedFeed) error {
		err := writeIndexStream(tmp, n, tree, func(put func(*indexEntry)) error {
			i := 0
			_, err := forKept(func(k *indexEntry) {
				if bad != nil && bad[i] {
					if tree != nil {
						tree.invalidate(k.path)
					}
				} else {
					put(k)
					if built != nil {
						built.add(k.path, k.mode(), k.oid)
					}
					if feed != nil {
						feed.add(k)
					}
				}
				i++
			})
			if built != nil {
				trees = built.finish() // before the cache-tree is written
			}
			return err
		})
		if err == nil {
			err = os.Rename(tmp, s.git.IndexFile)
		}
		if err != nil {
			os.Remove(tmp)
		}
		return err
	}
	if walking && simple && bad == nil {
		// The walk reads the entries as they are written (seedfeed.go):
		// the second pass and the walk run side by side. Should the
		// pass fail (the user's index changed under it), the walk fails
		// with it and the caller walks with git, borrowing still.
		feed := newSeedFeed(n, [2]uint32{idxSec, idxNsec})
		stored := make(chan error, 1)
		go func() {
			err := writeSeed(feed)
			var ext []byte
			if err == nil && tree != nil {
				ext = encodeCacheTree(tree)
			}
			feed.close(ext, err)
			if err != nil || tree == nil {
				stored <- nil
				return
			}
			stored <- storeTrees(s.git.GitDir, s.fast.secrets, trees)
		}()
		return feed, sync.OnceValue(func() error {
			feed.drain()
			return treesStored(<-stored)
		})
	}
	if err := writeSeed(nil); err != nil {
		os.Remove(s.borrowFile())
		s.git.Borrow = ""
		return nil, nil
	}
	if !simple {
		// What the store excludes (node_modules/, the data directory, ...)
		// is not the user's to keep here either: out of the index, as
		// before. Patterns excludedBy cannot read are git's to match.
		out, err := s.git.Output(ctx, nil, "ls-files", "-z", "--cached", "--ignored",
			"--exclude-from="+filepath.Join(s.git.GitDir, "info", "exclude"))
		if err == nil && len(out) > 0 {
			_, err = s.git.Output(ctx, out, "update-index", "-z", "--force-remove", "--stdin")
		}
		if err != nil {
			os.Remove(s.git.IndexFile)
			return nil, nil
		}
	}
	if tree == nil {
		return nil, nil
	}
	// The trees, built in Go and checked against the cache-tree, stored
	// while the caller walks: a store that refers to them does not
	// depend on the user's repository keeping them.
	done := make(chan error, 1)
	go func() { done <- storeTrees(s.git.GitDir, s.fast.secrets, trees) }()
	return nil, sync.OnceValue(func() error { return treesStored(<-done) })
}

// borrowFile names the object directory the store borrows from. It is not
// objects/info/alternates: git would then also touch the user's objects
// when writing (see gitcmd.Private.Borrow).
func (s *Store) borrowFile() string { return filepath.Join(s.git.GitDir, "agent-borrow") }

// readBorrow sets the store's borrowed object directory from borrowFile.
func (s *Store) readBorrow() {
	if b, err := os.ReadFile(s.borrowFile()); err == nil {
		s.git.Borrow = strings.TrimSpace(string(b))
	}
}

// blobSize is a kept entry's blob and the size its index entry gives.
type blobSize struct {
	oid  [20]byte
	size uint32
}

// sameSizeBlobs says, entry by entry, which blobs are missing or have
// another size than the index gives the file (bad[i]): where a clean
// filter or an eol conversion made the blob differ from the file, the
// file must be read.
func (s *Store) sameSizeBlobs(ctx context.Context, entries []blobSize) ([]bool, error) {
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriter(pw)
		for i := range entries {
			fmt.Fprintf(w, "%x\n", entries[i].oid)
		}
		pw.CloseWithError(w.Flush())
	}()
	defer pr.Close()
	cmd := s.git.Command(ctx, "cat-file", "--batch-check=%(objectname) %(objectsize)")
	cmd.Stdin = pr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	bad := make([]bool, len(entries))
	i := 0
	sc := bufio.NewScanner(out)
	for sc.Scan() && i < len(entries) {
		e := entries[i]
		_, size, _ := strings.Cut(sc.Text(), " ")
		n, err := strconv.ParseUint(size, 10, 64) // or "<oid> missing"
		bad[i] = err != nil || n != uint64(e.size) && e.size != 0
		i++
	}
	io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		return nil, err
	}
	if i != len(entries) {
		return nil, errSeed
	}
	return bad, nil
}

// maxRepoFileBytes bounds a file of the user's repository read for the
// seed (its index above all: about 100 bytes a file).
const maxRepoFileBytes = 256 << 20

// readRepoFile reads a file of the user's repository (or configuration)
// by the tools' rules: a link out of home, a FIFO, a device or a file over
// maxRepoFileBytes is an error, never a wait or an endless read. A refused
// file means no seed: the snapshot reads the tree as without one.
func readRepoFile(path, home string) ([]byte, error) {
	return safefile.Read(context.Background(), path, home, maxRepoFileBytes)
}
