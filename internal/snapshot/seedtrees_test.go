package snapshot

import (
	"context"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// randomRepo writes a repository of random files (names that sort
// differently as files and as directories: "a", "a.b", "a-b", "a0",
// executables, symlinks, a few levels deep), adds them and writes the
// tree, so the index has its cache-tree. It returns the root tree and
// every tree git wrote, by directory ("a/b/", "" for the root).
func randomRepo(t *testing.T, seed uint64) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(seed, 26))
	names := []string{"a", "a.b", "a-b", "a0", "a_", "b", "B", "z", "é", "a b"}
	var fill func(d string, depth int)
	fill = func(d string, depth int) {
		os.MkdirAll(d, 0o755)
		used := map[string]bool{}
		for range 1 + rng.IntN(6) {
			name := names[rng.IntN(len(names))]
			if used[name] {
				continue
			}
			used[name] = true
			p := filepath.Join(d, name)
			switch r := rng.IntN(10); {
			case r < 3 && depth < 4:
				fill(p, depth+1)
			case r == 3:
				os.Symlink("target-"+name, p)
			default:
				mode := os.FileMode(0o644)
				if r == 4 {
					mode = 0o755
				}
				os.WriteFile(p, []byte(fmt.Sprintf("%s %d\n", name, rng.IntN(3))), mode)
				os.Chmod(p, mode)
			}
		}
	}
	fill(dir, 0)
	os.WriteFile(filepath.Join(dir, "top"), []byte("top\n"), 0o644)
	userGit(t, dir, "init", "-q")
	userGit(t, dir, "add", "-A")
	cmd := exec.Command("sh", "-c", "git write-tree && git ls-tree -r -t -z $(git write-tree)")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	root, rest, _ := strings.Cut(string(out), "\n")
	trees := map[string]string{"": root}
	for _, rec := range strings.Split(rest, "\x00") {
		// "<mode> <type> <oid>\t<path>"
		meta, path, ok := strings.Cut(rec, "\t")
		if f := strings.Fields(meta); ok && len(f) == 3 && f[1] == "tree" {
			trees[path+"/"] = f[2]
		}
	}
	return dir, trees
}

// buildSeedTrees runs seedTrees over the index at dir.
func buildSeedTrees(t *testing.T, dir string, edit func(*cacheTree)) (*seedTrees, *cacheTree, [][]byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	entries, ext, err := readIndex(data)
	if err != nil || ext == nil {
		t.Fatalf("index: %v, cache-tree %v", err, ext != nil)
	}
	tree, err := parseCacheTree(ext)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(tree)
	}
	b := newSeedTrees(tree)
	for _, e := range entries {
		b.add(e.path, e.mode(), e.oid)
	}
	return b, tree, b.finish()
}

func treeIDs(trees [][]byte) map[string]bool {
	ids := map[string]bool{}
	for _, body := range trees {
		ids[objectHex("tree", body)] = true
	}
	return ids
}

// objectHex is an object's id as git computes it.
func objectHex(kind string, body []byte) string {
	id := objectID(kind, body)
	return hex.EncodeToString(id[:])
}

// TestSeedTreesAreGitsWriteTree: the trees the seed builds from the
// index entries are the trees git's write-tree writes, every one of
// them, for random trees (a differential test against git), and every
// cache-tree node is found valid.
func TestSeedTreesAreGitsWriteTree(t *testing.T) {
	needGit(t)
	for seed := range uint64(12) {
		dir, want := randomRepo(t, seed)
		b, tree, trees := buildSeedTrees(t, dir, nil)
		if len(b.wrong) != 0 {
			t.Errorf("seed %d: trees not git's: %v", seed, b.wrong)
		}
		if got := hexOf(tree.oid); tree.count < 0 || got != want[""] {
			t.Errorf("seed %d: root %s (count %d), write-tree %s", seed, got, tree.count, want[""])
		}
		got := treeIDs(trees)
		for path, id := range want {
			if !got[id] {
				t.Errorf("seed %d: git's tree of %q (%s) not built", seed, path, id)
			}
		}
		if len(got) > len(want) {
			t.Errorf("seed %d: %d trees built, git wrote %d", seed, len(got), len(want))
		}
	}
}

// TestSeedTreesDistrustAWrongCacheTree: a cache-tree node whose tree is
// not the one its entries make (a stale or corrupt index) is marked
// invalid with the directories above it, and its tree is not stored;
// its siblings' trees still are.
func TestSeedTreesDistrustAWrongCacheTree(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	for _, p := range []string{"x/one", "x/two", "y/three", "y/sub/four"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(p), 0o644)
	}
	userGit(t, dir, "init", "-q")
	userGit(t, dir, "add", "-A")
	userGit(t, dir, "write-tree")
	var good [20]byte
	b, tree, trees := buildSeedTrees(t, dir, func(root *cacheTree) {
		x := root.at("x/")
		good = x.oid
		x.oid[0] ^= 0xff // not x's tree
	})
	if tree.count >= 0 || tree.at("x/").count >= 0 {
		t.Errorf("root valid %v, x valid %v: a wrong tree kept", tree.count >= 0, tree.at("x/").count >= 0)
	}
	if tree.at("y/").count < 0 || tree.at("y/sub/").count < 0 {
		t.Error("y lost its valid tree")
	}
	ids := treeIDs(trees)
	if ids[hexOf(good)] {
		t.Error("x's tree stored for a node that named another")
	}
	if !ids[hexOf(tree.at("y/").oid)] || !ids[hexOf(tree.at("y/sub/").oid)] {
		t.Error("y's trees not stored")
	}
	if len(b.wrong) != 1 || b.wrong[0] != "x/" {
		t.Errorf("directories found wrong: %v, want x/", b.wrong)
	}
}

// TestSeededFirstSnapshotSpawnsNoGitProcess: the first snapshot of a
// clean checkout runs no git process (its trees were copied by
// pack-objects before), and the store holds every tree it names: fsck
// without the user's objects finds the trees, and the snapshot's tree
// is the user's HEAD tree.
func TestSeededFirstSnapshotSpawnsNoGitProcess(t *testing.T) {
	needGit(t)
	work := t.TempDir()
	genTree(t, work, 300)
	userGit(t, work, "init", "-q")
	userGit(t, work, "add", "-A")
	userGit(t, work, "commit", "-q", "-m", "c")
	ran := logGit(t)
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir(), work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := s.Take(ctx, "s", "first")
	if err != nil {
		t.Fatal(err)
	}
	if got := ran(); got != "" {
		t.Errorf("a seeded first snapshot ran git:\n%s", got)
	}
	cmd := exec.Command("git", "rev-parse", "HEAD^{tree}")
	cmd.Dir = work
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(out)); snap.Tree != want {
		t.Errorf("snapshot tree %s, HEAD's %s", snap.Tree, want)
	}
	// Every tree is the store's own: ls-tree with no borrowed objects.
	p := s.git
	p.Borrow = ""
	if out, err := p.Output(ctx, nil, "ls-tree", "-r", "-t", "-d", snap.Tree); err != nil || len(out) == 0 {
		t.Fatalf("the store's trees: %v\n%s", err, out)
	}
}
