package snapshot

import (
	"bytes"
	"context"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// looseObjects counts the objects a store wrote loose (blobs, trees,
// commits): what its snapshots read and stored.
func looseObjects(t testing.TB, s *Store) int {
	t.Helper()
	n := 0
	filepath.WalkDir(filepath.Join(s.git.GitDir, "objects"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && len(filepath.Base(filepath.Dir(p))) == 2 {
			n++
		}
		return nil
	})
	return n
}

// reference snapshots a copy of dir without its .git: the tree a store
// that reads every file records.
func reference(t *testing.T, dir string) Snapshot {
	t.Helper()
	cp := filepath.Join(t.TempDir(), "copy")
	sh(t, "/", "cp -a '"+dir+"' '"+cp+"' && rm -rf '"+cp+"/.git'")
	snap, err := openStore(t, cp).Take(context.Background(), "ref", "reference")
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// TestFirstSnapshotInAGitRepositoryReadsOnlyWhatDiffers: in a clean
// checkout the first snapshot stores no file the repository holds (its
// index seeds the store's, its objects are borrowed), yet records exactly
// the tree a store reading every file records — with the user's index
// wrong about a file in every way seed.go names.
func TestFirstSnapshotInAGitRepositoryReadsOnlyWhatDiffers(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, sub, script string
		wantLoose         int // at most: the commit, then what differs (trees of a clean checkout go into one pack)
	}{
		{name: "clean checkout", wantLoose: 1},
		{name: "subdirectory", sub: "pkg001", wantLoose: 1},
		{name: "changed in every way", script: `
			echo changed >> pkg000/file00001.go                       # modified, unstaged
			echo new > untracked.txt                                  # untracked
			rm pkg000/file00002.go                                    # deleted
			chmod 600 pkg000/file00003.go                             # mode only
			echo staged > pkg000/file00004.go && git add pkg000/file00004.go
			echo again > pkg000/file00004.go                          # staged, then changed again
			git update-index --assume-unchanged pkg000/file00005.go
			echo hidden >> pkg000/file00005.go                        # the user's git looks away
			git update-index --skip-worktree pkg000/file00006.go
			rm pkg000/file00006.go
			echo later > ita.txt && git add -N ita.txt                # intent to add
			printf 'big' > big.bin && truncate -s 3M big.bin && git add big.bin
			`, wantLoose: 10},
		{name: "autocrlf", script: `
			git config core.autocrlf true
			printf 'one\r\ntwo\r\n' > crlf.txt
			git add -A && git commit -q -m crlf
			`, wantLoose: 4},
		{name: "clean filter", script: `
			git config filter.grow.clean 'sed s/a/aaa/g'
			echo '*.txt filter=grow' > .gitattributes
			printf 'banana\n' > fruit.txt
			git add -A && git commit -q -m filter
			`, wantLoose: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := t.TempDir()
			genTree(t, repo, 300)
			userGit(t, repo, "init", "-q", "-b", "main")
			userGit(t, repo, "add", "-A")
			userGit(t, repo, "commit", "-q", "-m", "init")
			// Files a minute old, the index refreshed: git trusts the
			// stat data (no entry is as new as an index), as in a
			// checkout not made this second.
			sh(t, repo, "export GIT_CONFIG_GLOBAL=/dev/null GIT_AUTHOR_NAME=u GIT_AUTHOR_EMAIL=u@u GIT_COMMITTER_NAME=u GIT_COMMITTER_EMAIL=u@u\n"+tc.script+
				"\nfind . -name .git -prune -o -type f -exec touch -d '1 minute ago' {} +\ngit update-index -q --refresh || true")
			work := filepath.Join(repo, tc.sub)
			gitBefore := hashGitDir(t, repo)

			s := openStore(t, work)
			snap, err := s.Take(ctx, "ses1", "first")
			if err != nil {
				t.Fatal(err)
			}
			ref := reference(t, work)
			if snap.Tree != ref.Tree || snap.Modes != ref.Modes {
				t.Errorf("seeded snapshot tree %s modes %q, a full read gives %s %q", snap.Tree, snap.Modes, ref.Tree, ref.Modes)
			}
			if !reflect.DeepEqual(skipNames(snap.Skipped), skipNames(ref.Skipped)) {
				t.Errorf("skipped %v, a full read skips %v", skipNames(snap.Skipped), skipNames(ref.Skipped))
			}
			if n := looseObjects(t, s); n > tc.wantLoose {
				t.Errorf("the first snapshot wrote %d objects (at most %d): it stored what the repository holds", n, tc.wantLoose)
			}
			if after := hashGitDir(t, repo); !reflect.DeepEqual(gitBefore, after) {
				for k, v := range after {
					if gitBefore[k] != v {
						t.Errorf("the user's .git changed: %s %s → %s", k, gitBefore[k], v)
					}
				}
				for k := range gitBefore {
					if _, ok := after[k]; !ok {
						t.Errorf("the user's .git changed: %s removed", k)
					}
				}
			}

			// The next snapshots see changes as before.
			os.WriteFile(filepath.Join(work, "late.txt"), []byte("late\n"), 0o644)
			next, err := s.Take(ctx, "ses1", "second")
			if err != nil {
				t.Fatal(err)
			}
			patch, err := s.Diff(ctx, snap.ID, next.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(patch.Files) != 1 || patch.Files[0].Path != "late.txt" {
				t.Errorf("second snapshot's patch: %+v", patch.Files)
			}
		})
	}
}

func skipNames(skips []Skip) []string {
	var out []string
	for _, sk := range skips {
		out = append(out, sk.Path+" "+sk.Reason)
	}
	return out
}

// TestReadIndexVersions: the seed reads the index versions git writes (2,
// 3 with extended flags, 4 with compressed paths) to the same entries.
func TestReadIndexVersions(t *testing.T) {
	needGit(t)
	repo := t.TempDir()
	genTree(t, repo, 40)
	userGit(t, repo, "init", "-q")
	userGit(t, repo, "add", "-A")
	var want []string
	for _, v := range []string{"2", "3", "4"} {
		userGit(t, repo, "update-index", "--index-version", v)
		if v == "3" {
			userGit(t, repo, "update-index", "--skip-worktree", "pkg000/file00007.go")
		}
		data, err := os.ReadFile(filepath.Join(repo, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		entries, _, err := readIndex(data)
		if err != nil {
			t.Fatalf("version %s: %v", v, err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.path+" "+strings.TrimSpace(string(rune('0'+e.mode()%8))))
		}
		if want == nil {
			want = got
		} else if !reflect.DeepEqual(got, want) {
			t.Errorf("version %s reads %v, version 2 %v", v, got, want)
		}
		again, _, err := readIndex(writeIndex(entries, nil))
		if err != nil || !reflect.DeepEqual(again[0].path, entries[0].path) || len(again) != len(entries) {
			t.Errorf("version %s: written back and read: %v", v, err)
		}
	}
	if len(want) != 40 {
		t.Errorf("read %d entries, want 40", len(want))
	}
}

// TestExcludedByMatchesGit: the seed's own matcher of the store's simple
// patterns agrees with git's on tracked files.
func TestExcludedByMatchesGit(t *testing.T) {
	needGit(t)
	patterns := append(append([]string{}, DefaultExcludes...), "/.agent-data/", "gen/out", "/top.txt", "logs/")
	for _, p := range patterns {
		if !simplePattern(p) {
			t.Fatalf("%q is not simple", p)
		}
	}
	for _, p := range []string{"*.log", "!keep", "a\\b", "#x", "/"} {
		if simplePattern(p) {
			t.Errorf("%q taken as simple", p)
		}
	}
	paths := []string{
		"node_modules/x.js", "a/node_modules/b/c.js", "node_modules", "x/node_modules", ".git/config",
		"sub/.git", "a/.gitx", ".agent-data/f", "b/.agent-data/f", "gen/out", "gen/out/x", "a/gen/out",
		"top.txt", "a/top.txt", "top.txt2", "logs/1", "logs", "a/logs/2", ".venv/bin/python", "src/main.go",
	}
	repo := t.TempDir()
	userGit(t, repo, "init", "-q")
	excl := filepath.Join(t.TempDir(), "exclude")
	os.WriteFile(excl, []byte(strings.Join(patterns, "\n")+"\n"), 0o644)
	for _, p := range paths {
		os.MkdirAll(filepath.Join(repo, filepath.Dir(p)), 0o755)
		if fi, err := os.Stat(filepath.Join(repo, p)); err == nil && fi.IsDir() {
			continue
		}
		os.WriteFile(filepath.Join(repo, p), []byte("x"), 0o644)
	}
	var files []string
	for _, p := range paths {
		if fi, err := os.Stat(filepath.Join(repo, p)); err == nil && !fi.IsDir() && !strings.HasPrefix(p, ".git/") && p != "sub/.git" {
			files = append(files, p)
		}
	}
	userGit(t, repo, append([]string{"add", "-f", "--"}, files...)...)
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--ignored", "--exclude-from="+excl)
	cmd.Dir = repo
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	gitSays := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		gitSays[p] = true
	}
	for _, p := range files {
		if got := excludedBy(patterns, p); got != gitSays[p] {
			t.Errorf("%s: excludedBy %v, git %v", p, got, gitSays[p])
		}
		if got := compileExcludes(patterns).matchBytes([]byte(p)); got != gitSays[p] {
			t.Errorf("%s: matchBytes %v, git %v", p, got, gitSays[p])
		}
	}
	for _, p := range []string{".git/config", "sub/.git"} {
		if !excludedBy(patterns, p) {
			t.Errorf("%s not excluded", p)
		}
	}
}

// TestRestoreSaysWhatTheRepositoryNoLongerHolds: a seeded store borrows
// the repository's blobs; when the user's git gc removed one, a restore
// refuses (gone_test.go); forced, it names the file it cannot bring back
// and restores the rest.
func TestRestoreSaysWhatTheRepositoryNoLongerHolds(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	repo := t.TempDir()
	genTree(t, repo, 20)
	userGit(t, repo, "init", "-q", "-b", "main")
	userGit(t, repo, "add", "-A")
	userGit(t, repo, "commit", "-q", "-m", "init")
	s := openStore(t, repo)
	before, err := s.Take(ctx, "ses1", "before")
	if err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(repo, "pkg000", "file00001.go"), filepath.Join(repo, "pkg000", "file00002.go")
	oldA, _ := os.ReadFile(a)
	os.WriteFile(a, []byte("agent\n"), 0o644)
	os.WriteFile(b, []byte("agent\n"), 0o644)
	after, err := s.Take(ctx, "ses1", "after")
	if err != nil {
		t.Fatal(err)
	}
	// The user's history loses file00002.go's old content, as a rewrite
	// and `git gc --prune=now` would: its loose object goes.
	cmd := exec.Command("git", "rev-parse", "HEAD:pkg000/file00002.go")
	cmd.Dir = repo
	oid, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	h := strings.TrimSpace(string(oid))
	if err := os.Remove(filepath.Join(repo, ".git", "objects", h[:2], h[2:])); err != nil {
		t.Fatal(err)
	}
	res, err := s.Restore(ctx, "ses1", before.ID, RestoreOptions{Expect: after.ID, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.NotRestored) != 1 || res.NotRestored[0].Path != "pkg000/file00002.go" || res.NotRestored[0].Reason != ReasonGone {
		t.Errorf("not restored: %+v", res.NotRestored)
	}
	if got, _ := os.ReadFile(a); !bytes.Equal(got, oldA) {
		t.Errorf("file00001.go not restored: %q", got)
	}
	if got, _ := os.ReadFile(b); string(got) != "agent\n" {
		t.Errorf("file00002.go changed: %q", got)
	}
}

// TestAStoreOpenedBeforeTheSeedBorrowsToo: two sessions open the store
// of one directory; the second seeds it; the first still reads the
// borrowed objects (a restore of its own finds them).
func TestAStoreOpenedBeforeTheSeedBorrowsToo(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	repo := t.TempDir()
	genTree(t, repo, 10)
	userGit(t, repo, "init", "-q", "-b", "main")
	userGit(t, repo, "add", "-A")
	userGit(t, repo, "commit", "-q", "-m", "init")
	data := t.TempDir()
	first, err := Open(ctx, data, repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	second, err := Open(ctx, data, repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	before, err := second.Take(ctx, "ses2", "before")
	if err != nil {
		t.Fatal(err)
	}
	if looseObjects(t, second) > 1 {
		t.Fatalf("not seeded: %d objects", looseObjects(t, second))
	}
	p := filepath.Join(repo, "pkg000", "file00003.go")
	old, _ := os.ReadFile(p)
	os.WriteFile(p, []byte("changed\n"), 0o644)
	after, err := first.Take(ctx, "ses1", "after")
	if err != nil {
		t.Fatal(err)
	}
	res, err := first.Restore(ctx, "ses1", before.ID, RestoreOptions{Expect: after.ID, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); !bytes.Equal(got, old) || len(res.NotRestored) > 0 {
		t.Errorf("restored %q, not restored %+v", got, res.NotRestored)
	}
}

// TestPruningASeededStoreLeavesTheRepositoryAlone: the store's gc keeps
// what its refs reach without copying or touching the borrowed objects.
func TestPruningASeededStoreLeavesTheRepositoryAlone(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	repo := t.TempDir()
	genTree(t, repo, 20)
	userGit(t, repo, "init", "-q", "-b", "main")
	userGit(t, repo, "add", "-A")
	userGit(t, repo, "commit", "-q", "-m", "init")
	gitBefore := hashGitDir(t, repo)
	s := openStore(t, repo)
	first, err := s.Take(ctx, "ses1", "first")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(repo, "pkg000", "file00001.go"), []byte("changed\n"), 0o644)
	second, err := s.Take(ctx, "ses2", "second")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DropSession(ctx, "ses2"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prune(ctx, map[ID]bool{first.ID: true}, DefaultCapBytes); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gitBefore, hashGitDir(t, repo)) {
		t.Errorf("the user's .git changed")
	}
	if st, _ := s.Stats(ctx); st.SizeBytes > 64<<10 {
		t.Errorf("the store holds %d bytes after gc: it copied the borrowed objects", st.SizeBytes)
	}
	_ = second
	res, err := s.Restore(ctx, "ses1", first.ID, RestoreOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "pkg000", "file00001.go")); !strings.HasPrefix(string(b), "// 1\n") || len(res.NotRestored) > 0 {
		t.Errorf("after gc, restored %q, not restored %+v", b, res.NotRestored)
	}
}

// TestExcludeMemoIsMatch: the seed's memo of a directory's answer agrees
// with the matcher on every path, in the index's order or any other.
func TestExcludeMemoIsMatch(t *testing.T) {
	patterns := append(append([]string{}, DefaultExcludes...), "/.agent-data/", "gen/out", "/top.txt", "logs/", "/a/b")
	m := compileExcludes(patterns)
	comps := []string{"a", "b", "gen", "out", "logs", "node_modules", ".git", "top.txt", ".agent-data", "x", ".venv", "src"}
	rng := rand.New(rand.NewPCG(1, 2))
	var paths []string
	for range 5000 {
		n := 1 + rng.IntN(4)
		var p []string
		for range n {
			p = append(p, comps[rng.IntN(len(comps))])
		}
		paths = append(paths, strings.Join(p, "/"))
	}
	for _, order := range []string{"random", "sorted"} {
		if order == "sorted" {
			sort.Strings(paths)
		}
		memo := excludeMemo{m: m}
		for _, p := range paths {
			if got, want := memo.match([]byte(p)), m.match(p); got != want {
				t.Fatalf("%s order: %s: memo %v, matcher %v", order, p, got, want)
			}
		}
	}
}
