package snapshot

// cachetree.go: the user's index also knows the trees of its directories
// (the "TREE" extension, git's cache-tree). The seed keeps it, for the
// subtree of the work tree, with every directory that lost an entry marked
// invalid, and stores the valid trees, built from the entries and checked
// against it (seedtrees.go), in one pack of the store: then
// goPath.update (goindex.go), or git's write-tree, which runs without the
// borrowed objects, finds them and writes only the trees of what differs
// — not one object per directory of a clean checkout. goPath.update keeps the
// cache-tree up to date in the store's index at every snapshot.

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// cacheTree is one directory of a cache-tree: its entry count (-1:
// invalid), its tree when valid, its subdirectories in index order.
type cacheTree struct {
	name  string
	count int
	oid   [20]byte
	kids  []*cacheTree
}

// parseCacheTree reads a TREE extension's data.
func parseCacheTree(data []byte) (*cacheTree, error) {
	t, rest, err := parseCacheNode(data, 0)
	if err != nil || len(rest) != 0 {
		return nil, errSeed
	}
	return t, nil
}

func parseCacheNode(b []byte, depth int) (*cacheTree, []byte, error) {
	if depth > 4096 {
		return nil, nil, errSeed
	}
	name, rest, ok := bytes.Cut(b, []byte{0})
	if !ok {
		return nil, nil, errSeed
	}
	line, rest, ok := bytes.Cut(rest, []byte{'\n'})
	if !ok {
		return nil, nil, errSeed
	}
	cnt, sub, ok := strings.Cut(string(line), " ")
	count, err1 := strconv.Atoi(cnt)
	nsub, err2 := strconv.Atoi(sub)
	if !ok || err1 != nil || err2 != nil || nsub < 0 {
		return nil, nil, errSeed
	}
	t := &cacheTree{name: string(name), count: count}
	if count >= 0 {
		if len(rest) < 20 {
			return nil, nil, errSeed
		}
		copy(t.oid[:], rest[:20])
		rest = rest[20:]
	}
	for range nsub {
		kid, r, err := parseCacheNode(rest, depth+1)
		if err != nil {
			return nil, nil, err
		}
		t.kids = append(t.kids, kid)
		rest = r
	}
	return t, rest, nil
}

// at returns the node of the directory dir ("a/b/", "" for t itself), or
// nil.
func (t *cacheTree) at(dir string) *cacheTree {
	for dir != "" {
		name, rest, _ := strings.Cut(dir, "/")
		var next *cacheTree
		for _, k := range t.kids {
			if k.name == name {
				next = k
				break
			}
		}
		if next == nil {
			return nil
		}
		t, dir = next, rest
	}
	return t
}

// invalidate marks t and the directories on the way to path invalid.
func (t *cacheTree) invalidate(path string) {
	for {
		t.count = -1
		name, rest, ok := strings.Cut(path, "/")
		if !ok {
			return
		}
		var next *cacheTree
		for _, k := range t.kids {
			if k.name == name {
				next = k
				break
			}
		}
		if next == nil {
			return
		}
		t, path = next, rest
	}
}

// encode writes t as a TREE extension's data, t itself as the root.
func (t *cacheTree) encode(b *bytes.Buffer, root bool) {
	if !root {
		b.WriteString(t.name)
	}
	b.WriteByte(0)
	fmt.Fprintf(b, "%d %d\n", t.count, len(t.kids))
	if t.count >= 0 {
		b.Write(t.oid[:])
	}
	for _, k := range t.kids {
		k.encode(b, false)
	}
}
