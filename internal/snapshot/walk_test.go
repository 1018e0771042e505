package snapshot

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestGoWalkSameSnapshotsAsGit is walk.go's oracle: the same trees, changed
// round after round, taken by a store that walks in Go and by one that
// lists the changes with git (gitWalk), give the same trees, the same
// modes and the same skipped paths. The trees have nested directories,
// symlinks, exec and odd permission bits, ignored files and directories
// (negations, dir-only and anchored patterns, tracked files under an
// ignored directory), unicode names, empty files, a nested repository,
// files that became directories and back, and racily clean files (changed
// right after the snapshot, or dated after the index).
func TestGoWalkSameSnapshotsAsGit(t *testing.T) {
	needGit(t)
	for _, seeded := range []bool{false, true} {
		for seed := range uint64(2) {
			t.Run(fmt.Sprintf("seeded=%v/%d", seeded, seed), func(t *testing.T) {
				differential(t, seeded, seed, false)
			})
		}
	}
	// The directories' listings answered from the untracked cache
	// (dircache.go) whenever their stat data allow: its clock an hour
	// ahead, so that no listing is too recent to trust.
	for _, seeded := range []bool{false, true} {
		t.Run(fmt.Sprintf("cached/seeded=%v", seeded), func(t *testing.T) {
			hits := dirCacheHits.Load()
			differential(t, seeded, 3, true)
			if dirCacheHits.Load() == hits {
				t.Error("no listing came from the cache: the test compared the walk without it")
			}
		})
	}
}

// trustEveryListing moves the untracked cache's clock an hour ahead for
// the test.
func trustEveryListing(t *testing.T) {
	dirCacheNow = func() time.Time { return time.Now().Add(time.Hour) }
	t.Cleanup(func() { dirCacheNow = time.Now })
}

func differential(t *testing.T, seeded bool, seed uint64, cached bool) {
	if cached {
		trustEveryListing(t)
	}
	ctx := context.Background()
	work := t.TempDir()
	rng := rand.New(rand.NewPCG(seed, 26))
	names := []string{"a", "b.go", "é.txt", "日本", "a-b", "a.b", "a0", "z z", "Makefile", "x.log", "build", "keep.log", "vendor"}
	write := func(rel, body string, perm os.FileMode) {
		abs := filepath.Join(work, rel)
		for d := filepath.Dir(abs); d != work; d = filepath.Dir(d) {
			if fi, err := os.Lstat(d); err == nil && !fi.IsDir() {
				os.Remove(d) // a file in the way of the directory
			}
		}
		os.MkdirAll(filepath.Dir(abs), 0o755)
		os.RemoveAll(abs)
		if err := os.WriteFile(abs, []byte(body), perm); err != nil {
			t.Fatal(err)
		}
		os.Chmod(abs, perm)
	}
	randPath := func() string {
		depth := 1 + rng.IntN(3)
		p := ""
		for i := range depth {
			if i > 0 {
				p += "/"
			}
			p += names[rng.IntN(len(names))]
		}
		return p
	}
	write(".gitignore", "*.log\n!keep.log\n/build/\nout/\n", 0o644)
	write("a/.gitignore", "b.go\n!日本\n", 0o644)
	write("build/gen.txt", "generated\n", 0o644)
	write("out/x", "x\n", 0o644)
	write("empty", "", 0o644)
	write("bin/run", "#!/bin/sh\n", 0o755)
	write("odd", "odd bits\n", 0o600)
	os.Symlink("../empty", filepath.Join(work, "bin", "link"))
	os.Symlink("a", filepath.Join(work, "dirlink"))
	for range 30 {
		write(randPath(), fmt.Sprint(rng.IntN(1000)), 0o644)
	}
	write("nested/inner.txt", "inner\n", 0o644)
	userGit(t, filepath.Join(work, "nested"), "init", "-q")
	userGit(t, filepath.Join(work, "nested"), "add", "-A")
	userGit(t, filepath.Join(work, "nested"), "commit", "-qm", "nested")
	os.MkdirAll(filepath.Join(work, "notrepo", ".git"), 0o755) // not a repository: git walks it
	write("notrepo/inner.txt", "inner\n", 0o644)
	if seeded {
		userGit(t, work, "init", "-q")
		userGit(t, work, "add", "-A")
		write("build/gen.txt", "generated\n", 0o644)
		userGit(t, work, "add", "-f", "build/gen.txt") // tracked under an ignored directory
	}
	goStore, err := Open(ctx, t.TempDir(), work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	gitStore, err := Open(ctx, t.TempDir(), work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	compare := func(round int) {
		t.Helper()
		gitWalk = true
		want, err := gitStore.Take(ctx, "s", "git")
		gitWalk = false
		if err != nil {
			t.Fatal(err)
		}
		got, err := goStore.Take(ctx, "s", "go")
		if err != nil {
			t.Fatal(err)
		}
		// The index goUpdate wrote is one git reads as its own: the same
		// entries as git's, and a cache-tree write-tree trusts.
		stage := func(st *Store) string {
			out, err := st.git.Output(ctx, nil, "ls-files", "-s")
			if err != nil {
				t.Fatal(err)
			}
			return string(out)
		}
		if g, w := stage(goStore), stage(gitStore); g != w {
			t.Fatalf("round %d: the Go index holds\n%s\ngit's\n%s", round, g, w)
		}
		if tree, err := goStore.git.Output(ctx, nil, "write-tree"); err != nil || strings.TrimSpace(string(tree)) != got.Tree {
			t.Fatalf("round %d: git write-tree of the Go index: %s %v, the snapshot's tree %s", round, tree, err, got.Tree)
		}
		skips := func(sn Snapshot) []string {
			var out []string
			for _, sk := range sn.Skipped {
				out = append(out, sk.Path+": "+sk.Reason)
			}
			slices.Sort(out)
			return out
		}
		if got.Tree != want.Tree || got.Modes != want.Modes || !slices.Equal(skips(got), skips(want)) {
			lines := func(st *Store, id ID) []string {
				out, _ := st.git.Output(ctx, nil, "ls-tree", "-r", string(id))
				return strings.Split(string(out), "\n")
			}
			g, w := lines(goStore, got.ID), lines(gitStore, want.ID)
			files := func(st *Store, id ID) []string {
				var only []string
				a, b := g, w
				if st == gitStore {
					a, b = w, g
				}
				for _, l := range a {
					if !slices.Contains(b, l) {
						only = append(only, l)
					}
				}
				return only
			}
			t.Fatalf("round %d: the Go walk's snapshot differs from git's:\ngo:  %s %s %v\n%s\ngit: %s %s %v\n%s", round,
				got.Tree, got.Modes, skips(got), files(goStore, got.ID), want.Tree, want.Modes, skips(want), files(gitStore, want.ID))
		}
	}
	before := goUpdates.Load()
	compare(0)
	for round := 1; round <= 8; round++ {
		for range 1 + rng.IntN(6) {
			p := randPath()
			abs := filepath.Join(work, p)
			switch rng.IntN(10) {
			case 0, 1:
				write(p, fmt.Sprint("changed ", rng.IntN(1000)), 0o644)
			case 2:
				os.RemoveAll(abs)
			case 3: // same size, same second: racily clean after the last snapshot
				if fi, err := os.Stat(abs); err == nil && fi.Mode().IsRegular() {
					b, _ := os.ReadFile(abs)
					for i := range b {
						b[i] ^= 1
					}
					os.WriteFile(abs, b, fi.Mode())
					os.Chtimes(abs, fi.ModTime(), fi.ModTime())
				}
			case 4:
				os.Chmod(abs, []os.FileMode{0o755, 0o600, 0o700, 0o644, 0o4755}[rng.IntN(5)])
			case 5: // a file becomes a directory, or a directory a file
				if fi, err := os.Lstat(abs); err == nil && fi.IsDir() {
					os.RemoveAll(abs)
					write(p, "was a directory", 0o644)
				} else {
					write(p+"/inside", "now a directory", 0o644)
				}
			case 6:
				write(p, "", 0o644)
				os.Remove(abs)
				os.Symlink(names[rng.IntN(len(names))], abs)
			case 7: // dated after the index: racy at every walk
				if _, err := os.Stat(abs); err == nil {
					future := time.Now().Add(time.Hour)
					os.Chtimes(abs, future, future)
				}
			case 8:
				write(p, "", 0o644)
			case 9: // a .gitignore edited in place: its directory unchanged
				rules := []string{"*.log\n!keep.log\n/build/\nout/\n", "*.log\n/build/\n", "out/\nvendor\n!keep.log\n*.log\n", "*.txt\n"}
				os.WriteFile(filepath.Join(work, ".gitignore"), []byte(rules[rng.IntN(len(rules))]), 0o644)
			}
		}
		// The last file of the walk, changed each round.
		write("龘/龘.txt", strings.Repeat("x", round), 0o644)
		compare(round)
	}
	if goUpdates.Load() == before {
		t.Error("no snapshot was stored by goUpdate: the test compared git with git")
	}
}
