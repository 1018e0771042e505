package snapshot

// seedtrees.go: the trees a seeded store needs, built in Go from the
// user's index entries, not copied out of the user's objects by a
// pack-objects process (the only git process a clean checkout's first
// snapshot ran: ~20 ms of a 13,000-file tree's ~80). Contract: a
// seedTrees is handed the entries the seed keeps, in index order (add),
// and builds the tree of every directory as git's write-tree would (an
// entry per file, a 40000 entry per subdirectory, sorted by name with a
// directory's name compared as "name/"). A directory whose cache-tree node
// (cachetree.go) is valid when it is complete is checked against it: the
// same entry count and the same tree id keep the tree for the store's
// pack (trees); any difference marks the directory and the ones above it
// invalid in the cache-tree (finish), so goPath.update writes them from
// the entries instead: the store never names a tree it does not hold.
// storeTrees writes the kept trees into one pack of the store.

import (
	"crypto/sha1"
	"slices"
	"strconv"
	"strings"
)

// seedTrees builds the seeded index's directory trees as entries come.
type seedTrees struct {
	root  *cacheTree
	open  []*seedDir // the root … the last entry's directory
	trees [][]byte   // the verified trees' bodies, to store
	wrong []string   // directories whose tree is not their node's ("a/b/")
}

// seedDir is a directory being built: its path ("a/b/", "" for the root),
// its cache-tree node (nil: none), its entries so far and its entry count.
type seedDir struct {
	path  string
	node  *cacheTree
	ents  []treeEntry
	count int
}

func newSeedTrees(root *cacheTree) *seedTrees {
	return &seedTrees{root: root, open: []*seedDir{{node: root}}}
}

// add takes the next kept entry (path relative to the work tree).
func (b *seedTrees) add(path string, mode uint32, oid [20]byte) {
	dir, name := "", path
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		dir, name = path[:i+1], path[i+1:]
	}
	// Close the open directories dir is not in, then open its own.
	for len(b.open) > 1 && !strings.HasPrefix(dir, b.open[len(b.open)-1].path) {
		b.close()
	}
	for top := b.open[len(b.open)-1]; top.path != dir; top = b.open[len(b.open)-1] {
		comp, _, _ := strings.Cut(dir[len(top.path):], "/")
		d := &seedDir{path: top.path + comp + "/"}
		if top.node != nil {
			for _, k := range top.node.kids {
				if k.name == comp {
					d.node = k
					break
				}
			}
		}
		b.open = append(b.open, d)
	}
	top := b.open[len(b.open)-1]
	top.ents = append(top.ents, treeEntry{name: name, mode: mode, oid: oid})
	top.count++
}

// close completes the innermost open directory: its tree is hashed,
// checked against its node, and named in its parent.
func (b *seedTrees) close() {
	d := b.open[len(b.open)-1]
	b.open = b.open[:len(b.open)-1]
	body, oid := treeBody(d.ents)
	if d.node != nil && d.node.count >= 0 {
		if d.node.count == d.count && d.node.oid == oid {
			b.trees = append(b.trees, body)
		} else {
			b.wrong = append(b.wrong, d.path)
		}
	}
	if len(b.open) > 0 {
		parent := b.open[len(b.open)-1]
		base := strings.TrimSuffix(d.path[len(parent.path):], "/")
		parent.ents = append(parent.ents, treeEntry{name: base, mode: 0o40000, oid: oid})
		parent.count += d.count
	}
}

// finish closes every directory, the root last, and marks the ones
// whose tree was not their node's invalid. It returns the trees to store.
func (b *seedTrees) finish() [][]byte {
	for len(b.open) > 0 {
		b.close()
	}
	for _, dir := range b.wrong {
		b.root.invalidate(dir)
	}
	return b.trees
}

// treeBody encodes ents as a tree object's body, in git's order, and
// returns it with the tree's id.
func treeBody(ents []treeEntry) ([]byte, [20]byte) {
	key := func(e treeEntry) string {
		if e.mode == 0o40000 {
			return e.name + "/"
		}
		return e.name
	}
	if !slices.IsSortedFunc(ents, func(a, b treeEntry) int { return strings.Compare(key(a), key(b)) }) {
		slices.SortStableFunc(ents, func(a, b treeEntry) int { return strings.Compare(key(a), key(b)) })
	}
	n := 0
	for _, e := range ents {
		n += len(e.name) + 28
	}
	body := make([]byte, 0, n)
	for _, e := range ents {
		body = append(body, strconvOctal(e.mode)...)
		body = append(body, ' ')
		body = append(body, e.name...)
		body = append(body, 0)
		body = append(body, e.oid[:]...)
	}
	h := sha1.New()
	h.Write([]byte("tree " + strconv.Itoa(len(body)) + "\x00"))
	h.Write(body)
	var oid [20]byte
	h.Sum(oid[:0])
	return body, oid
}

// storeTrees writes trees into one pack of the store at gitDir.
func storeTrees(gitDir string, secrets []string, trees [][]byte) error {
	if len(trees) == 0 {
		return nil
	}
	p, err := newPackWriter(gitDir, secrets, len(trees))
	if err != nil {
		return err
	}
	for _, t := range trees {
		if _, err := p.put("tree", t); err != nil {
			p.abort()
			return err
		}
	}
	return p.finish()
}
