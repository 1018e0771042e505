package snapshot

// walk.go: the walk of a snapshot, in Go, in one pass. Contract: goPath.walk
// answers what `git ls-files --others --modified --deleted
// --exclude-standard` against the store's index answers — the untracked
// files that are not ignored (a nested repository as "dir/"), the files
// whose stat data differ from their index entry, and the entries gone —
// and, in the same pass, what readModes and the ignored files' listing
// need: the exact bits of the index's regular files that differ from
// git's canonical ones, and the untracked ignored files ("dir/" for a
// directory ignored whole). It reads the store's index one entry at a
// time (indexread.go) alongside a walk of the tree in the index's order,
// so neither is held whole; it matches ignore files with
// internal/tools/gitignore (the store's info/exclude, the user's excludes
// file, each directory's .gitignore, deeper first) and never descends
// into an ignored directory that has no entry of the index; a
// directory's entries come from its listing in the untracked cache
// (dircache.go) when its stat data allow. A file is
// "modified" as git decides with core.checkStat=default and
// core.trustctime=true: its type, its owner's x bit, mtime, ctime, inode,
// uid, gid or size (32 bits) differ, its entry's size was cleared, or it
// is racily clean (its mtime not older than the index file's): the
// caller re-hashes it, which at worst finds it unchanged.
//
// walk_test.go's differential test takes the same trees through this walk
// and through git's (gitWalk) and compares the snapshots' trees.

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/ctxloop/agent/internal/tools/gitignore"
)

// goPath is the store's Go path: the walk (here) and the update of its
// index (goindex.go), without a git process. Its fields are all it reads.
type goPath struct {
	gitDir       string // the store's git directory
	indexFile    string // the store's index
	excludesFile string // the user's configured excludes file ("": git's default)
	workTree     string
	maxBytes     int64     // the largest file stored
	excludes     []string  // the store's own ignore patterns (its info/exclude)
	secrets      []string  // Options.Secrets
	dirs         *dirCache // the directories' listings (dircache.go); nil: none
	perms        *permLog  // a first snapshot's odd modes, noted by hashPath (fullstore.go); nil: none
	watch        *gcWatch  // counts the paths the walk lists (gcbound.go); nil: none
}

// gitWalk, when set (tests), makes take list the changes with git as
// before goPath.walk: the differential test's other side.
var gitWalk bool

// walkResult is goPath.walk's answer.
type walkResult struct {
	changed []string            // as ls-files -z --others --modified --deleted: nested repositories "dir/"
	ignored []string            // untracked and ignored, as ls-files --others --ignored --directory
	modes   map[string]uint32   // the index's regular files whose bits are not canonical
	index   os.FileInfo         // the store's index as read (nil: none yet)
	entries int                 // its entry count
	tracked map[string][20]byte // the changed paths that have an entry: its blob
	tree    *cacheTree          // its cache-tree (nil: none)
}

// errGoUpdate: goPath.update (goindex.go) declined; git's path runs.
var errGoUpdate = errors.New("go update declined")

// goUpdates counts the snapshots goPath.update stored (tests).
var goUpdates atomic.Int64

// goUpdateMax is the most changed paths goPath.update takes: the file
// budget's (budget.go), so a first snapshot the budget allows goes without
// git too. Its records cost ≈ 100 bytes a path (changeset.go, oidset.go;
// trees written as the entries leave their directory), and the collector
// is held closer to the live heap while it runs (gcbound.go): ≈ 30 MiB
// added at 100,000 paths. More go to git's update-index.
func goUpdateMax() int { return DefaultMaxFiles }

// errNoGoWalk: the Go walk does not run here (another OS): git walks.
var errNoGoWalk = errors.New("no go walk on this system")

// walker is one goPath.walk.
type walker struct {
	work     string
	idx      indexSource
	cur      indexEntry
	has      bool // cur holds the next entry of the index
	idxMtime [2]uint32
	res      walkResult
	err      error
	jobs     chan statJob // directories' entries to compare, to the statters
	batch    statJob      // the current directory's
	dc       *dirCache    // nil: every directory is read
	par      *walkPar     // with no index: subdirectories walked side by side (walkfork.go); nil: serial
	splices  []walkSplice // the subdirectories given to other walkers
	watch    *gcWatch     // the paths listed, counted (gcbound.go)
}

// indexSource is where the walk reads the store's index: the file
// (indexReader), or the entries as the seed writes them (seedFeed).
type indexSource interface {
	next(e *indexEntry) bool
	finish() ([]byte, error)
}

// statJob is one directory's files that have an index entry: their stat
// data are compared by one of the statters (as git's preload-index does,
// in parallel).
type statJob struct {
	dir   string // absolute
	d     *dirFD // the directory, held for the job (nil: opened by path)
	items []statItem
}

type statItem struct {
	name string
	e    indexEntry
}

// statResult is one statter's answer.
type statResult struct {
	changed map[string][20]byte // path: the entry's blob
	modes   map[string]uint32
}

// statters is how many goroutines compare stat data.
const statters = 4

// walk walks the work tree against the store's index, read from seed
// when not nil (the first snapshot's: seedfeed.go), else from its file.
func (g *goPath) walk(seed *seedFeed) (walkResult, error) {
	if !statSupported {
		return walkResult{}, errNoGoWalk
	}
	w := &walker{work: g.workTree, watch: g.watch, res: walkResult{modes: map[string]uint32{}, tracked: map[string][20]byte{}}}
	if g.dirs != nil {
		w.dc = g.dirs
		w.dc.begin(g.workTree)
		defer func() { w.dc.end(w.err == nil) }()
	}
	var f *os.File
	var err error
	if seed == nil {
		f, err = os.Open(g.indexFile)
	}
	switch {
	case seed != nil:
		w.idx, w.idxMtime, w.res.entries = seed, seed.since, seed.n
		w.advance()
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return walkResult{}, err
	default:
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return walkResult{}, err
		}
		w.res.index = fi
		w.idxMtime = [2]uint32{uint32(fi.ModTime().Unix()), uint32(fi.ModTime().Nanosecond())}
		x, err := newIndexReader(f)
		if err != nil {
			return walkResult{}, err
		}
		w.idx, w.res.entries = x, x.n
		w.advance()
	}
	// Deeper files first: each directory's .gitignore, the store's
	// info/exclude, the user's excludes file (git's precedence).
	var stack *gitignore.Stack
	stack = stack.Push(g.workTree, gitignore.Load(userExcludes(g.excludesFile)))
	stack = stack.Push(g.workTree, gitignore.Parse([]byte(strings.Join(g.excludes, "\n"))))
	w.jobs = make(chan statJob, 2*statters)
	results := make(chan statResult, statters)
	for range statters {
		go func() {
			r := statResult{changed: map[string][20]byte{}, modes: map[string]uint32{}}
			for job := range w.jobs {
				statDir(job, w.idxMtime, &r)
			}
			results <- r
		}()
	}
	if w.idx == nil {
		w.par = newWalkPar()
	}
	w.dir("", openDirAt(nil, "", g.workTree), stack, false)
	w.join()
	w.flush()
	close(w.jobs)
	for range statters {
		r := <-results
		for p, oid := range r.changed {
			w.res.changed = append(w.res.changed, p)
			w.res.tracked[p] = oid
		}
		for p, m := range r.modes {
			w.res.modes[p] = m
		}
	}
	for w.has { // entries of directories gone
		w.res.changed = append(w.res.changed, w.cur.path)
		w.res.tracked[w.cur.path] = w.cur.oid
		w.advance()
	}
	slices.Sort(w.res.changed) // the statters answer in any order
	if w.idx != nil {
		ext, err := w.idx.finish()
		if err != nil && w.err == nil {
			w.err = err
		}
		if ext != nil {
			w.res.tree, _ = parseCacheTree(ext)
		}
		if seed != nil && w.err == nil { // the index the seed wrote, now in place
			w.res.index, w.err = os.Stat(g.indexFile)
		}
	}
	return w.res, w.err
}

// userExcludes is the excludes file git reads: the configured one, or
// $XDG_CONFIG_HOME/git/ignore.
func userExcludes(configured string) string {
	if configured != "" {
		return configured
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "git", "ignore")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".config", "git", "ignore")
	}
	return ""
}

func (w *walker) advance() {
	w.has = w.idx.next(&w.cur)
}

// dirent is an entry of a directory, with its key in the index's order.
type dirent struct {
	name string
	key  string // name, or name + "/" for a directory
	typ  fs.FileMode
}

// dir walks the directory rel ("" or "a/b/"), open as d (nil: it could
// not be opened; dir lets go of it); ignored: the directory is ignored
// (only entries of the index are looked at, the rest is listed as
// ignored).
func (w *walker) dir(rel string, d *dirFD, stack *gitignore.Stack, ignored bool) {
	defer d.release()
	abs := filepath.Join(w.work, filepath.FromSlash(rel))
	ents, err := w.dc.list(rel, abs, d)
	if err != nil && w.err == nil && rel == "" {
		w.err = err
	}
	hasIgnoreFile := false
	for _, e := range ents {
		if e.name == ".gitignore" && e.typ.IsRegular() {
			hasIgnoreFile = true
			break
		}
	}
	if hasIgnoreFile && !ignored {
		stack = stack.Push(abs, gitignore.Load(filepath.Join(abs, ".gitignore")))
	}
	for _, e := range ents {
		w.deletedBefore(rel, e.key)
		if !e.typ.IsDir() && w.has && len(w.cur.path) == len(rel)+len(e.name) &&
			strings.HasPrefix(w.cur.path, rel) && strings.HasSuffix(w.cur.path, e.name) {
			// The index's entry for this file: its stat data are compared
			// by a statter.
			if w.batch.dir != abs {
				w.flush()
				w.batch = w.newBatch(abs, d, len(ents))
			}
			w.batch.items = append(w.batch.items, statItem{e.name, w.cur})
			if len(w.batch.items) >= statBatch {
				w.flush()
				w.batch = w.newBatch(abs, d, len(ents))
			}
			w.advance()
			continue
		}
		p := rel + e.name
		switch {
		case e.typ.IsDir():
			switch ign := ignored || stack.Ignored(filepath.Join(abs, e.name), true); {
			case w.has && strings.HasPrefix(w.cur.path, p+"/"):
				w.dir(p+"/", openDirAt(d, e.name, abs), stack, ign)
			case ign:
				w.res.ignored = append(w.res.ignored, p+"/")
			case isRepo(filepath.Join(abs, e.name)):
				w.res.changed = append(w.res.changed, p+"/")
			default:
				if sub := openDirAt(d, e.name, abs); !w.fork(p+"/", sub, stack) {
					w.dir(p+"/", sub, stack, false)
				}
			}
		case !e.typ.IsRegular() && e.typ&fs.ModeSymlink == 0:
			// FIFOs, sockets, devices: git lists none.
		case ignored || stack.Ignored(filepath.Join(abs, e.name), false):
			w.res.ignored = append(w.res.ignored, p)
		default:
			if w.res.changed = append(w.res.changed, p); len(w.res.changed)%1024 == 0 {
				w.watch.add(1024)
			}
		}
	}
	w.deletedBefore(rel, "\xff") // what is left of this directory's entries
}

// statBatch is the most files of a statJob.
const statBatch = 256

// newBatch starts a statJob for the directory abs (open as d) of n
// entries: its items allocated once, not grown entry by entry.
func (w *walker) newBatch(abs string, d *dirFD, n int) statJob {
	return statJob{dir: abs, d: d.hold(), items: make([]statItem, 0, min(n, statBatch))}
}

// flush hands the current directory's files to the statters.
func (w *walker) flush() {
	if len(w.batch.items) > 0 {
		w.jobs <- w.batch
	} else {
		w.batch.d.release()
	}
	w.batch = statJob{}
}

// statDir compares a directory's files with their entries.
func statDir(job statJob, idxMtime [2]uint32, r *statResult) {
	fd := -1
	if job.d != nil {
		fd = job.d.fd
		defer job.d.release()
	} else {
		fd = openDir(job.dir)
		defer closeDir(fd)
	}
	for i := range job.items {
		it := &job.items[i]
		if fileChanged(fd, job.dir, it.name, &it.e, idxMtime, r.modes) {
			r.changed[it.e.path] = it.e.oid
		}
	}
}

// deletedBefore lists the index's entries that sort before rel+key (not
// built: this runs for every file) and are under the directory being
// walked: files gone.
func (w *walker) deletedBefore(rel, key string) {
	for w.has && lessJoined(w.cur.path, rel, key) {
		w.res.changed = append(w.res.changed, w.cur.path)
		w.res.tracked[w.cur.path] = w.cur.oid
		w.advance()
	}
}

// lessJoined reports whether a < rel+key.
func lessJoined(a, rel, key string) bool {
	n := min(len(a), len(rel))
	if c := strings.Compare(a[:n], rel[:n]); c != 0 {
		return c < 0
	}
	if len(a) < len(rel) {
		return true // a is a proper prefix of rel
	}
	return a[len(rel):] < key
}

// isRepo reports whether dir is a nested repository as git decides
// (is_nonbare_repository_dir): its .git is a directory with HEAD, objects
// and refs, or a file naming such a directory ("gitdir: <path>").
func isRepo(dir string) bool {
	dotGit := filepath.Join(dir, ".git")
	fi, err := os.Lstat(dotGit)
	if err != nil {
		return false
	}
	if fi.Mode().IsRegular() {
		gitDir, ok := resolveGitDir(dotGit, fi)
		return ok && isGitDir(gitDir)
	}
	return fi.IsDir() && isGitDir(dotGit)
}

func isGitDir(d string) bool {
	for _, name := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(d, name)); err != nil || !fi.IsDir() {
			return false
		}
	}
	_, err := os.Lstat(filepath.Join(d, "HEAD"))
	return err == nil
}

// racy reports whether e's mtime is not older than the index's.
func racy(e *indexEntry, idx [2]uint32) bool {
	sec, nsec := e.mtime()
	return sec > idx[0] || sec == idx[0] && nsec >= idx[1]
}

// emptyBlob is the id of the empty blob.
var emptyBlob = [20]byte{0xe6, 0x9d, 0xe2, 0x9b, 0xb2, 0xd1, 0xd6, 0x43, 0x4b, 0x8b, 0x29, 0xae, 0x77, 0x5a, 0xd8, 0xc2, 0xe4, 0x8c, 0x53, 0x91}

// sizeCleared reports whether e's size was cleared (racily clean when
// written): git then reads the file.
func sizeCleared(e *indexEntry) bool {
	return e.size() == 0 && !bytes.Equal(e.oid[:], emptyBlob[:])
}

// walkUnlessGit is walk, or errNoGoWalk when the tests ask for git's.
func (g *goPath) walkUnlessGit(seed *seedFeed) (walkResult, error) {
	if gitWalk {
		return walkResult{}, errNoGoWalk
	}
	return g.walk(seed)
}

// readDirents reads the directory abs: its entries but .git, sorted by
// key.
func readDirents(abs string) ([]dirent, error) {
	f, err := os.Open(abs)
	var des []fs.DirEntry
	if err == nil {
		des, err = f.ReadDir(-1)
		f.Close()
	}
	ents := make([]dirent, 0, len(des))
	for _, d := range des {
		if name := d.Name(); name != ".git" {
			ents = append(ents, newDirent(name, d.Type()))
		}
	}
	slices.SortFunc(ents, func(a, b dirent) int { return strings.Compare(a.key, b.key) })
	return ents, err
}

func newDirent(name string, typ fs.FileMode) dirent {
	e := dirent{name: name, key: name, typ: typ}
	if typ.IsDir() {
		e.key += "/"
	}
	return e
}
