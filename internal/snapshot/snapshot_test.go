package snapshot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

func needGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
}

// sh runs script with /bin/sh in dir: real sed, rm, mv, chmod.
func sh(t testing.TB, dir, script string) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-ec", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sh %q: %v\n%s", script, err, out)
	}
}

// userGit runs the user's own git in dir, isolated from the machine's
// configuration.
func userGit(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@u", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@u")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// state is a tree as the tests compare it: per path (not under .git), its
// type and permission bits and its content or link target.
func state(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if rel == ".git" && d.IsDir() {
			return filepath.SkipDir
		}
		if rel == "." {
			return nil
		}
		fi, err := os.Lstat(path)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			out[rel] = "link → " + target
		case fi.IsDir():
			out[rel] = "dir"
		default:
			body, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(body)
			out[rel] = fmt.Sprintf("%v %s", fi.Mode(), hex.EncodeToString(sum[:8]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameState(t testing.TB, what string, got, want map[string]string) {
	t.Helper()
	var diffs []string
	for k, w := range want {
		if g, ok := got[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("missing %s (%s)", k, w))
		} else if g != w {
			diffs = append(diffs, fmt.Sprintf("%s: %s, want %s", k, g, w))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("extra %s (%s)", k, g))
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("%s:\n  %s", what, strings.Join(diffs, "\n  "))
	}
}

// hashGitDir hashes every file under dir/.git (content and mode).
func hashGitDir(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(filepath.Join(dir, ".git"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, _ := os.Lstat(path)
		if d.IsDir() {
			out[path] = fmt.Sprintf("dir %v", fi.Mode())
			return nil
		}
		body, _ := os.ReadFile(path)
		sum := sha256.Sum256(body)
		out[path] = fmt.Sprintf("%v %x %v", fi.Mode(), sum[:8], fi.ModTime().UnixNano())
		return nil
	})
	return out
}

// fixture writes the starting tree: text, an executable, a private file,
// a binary, a symlink, a directory with files, an ignored file.
func fixture(t testing.TB, dir string) {
	t.Helper()
	files := map[string]struct {
		body string
		perm os.FileMode
	}{
		"a.txt":           {"hello\nworld\n", 0o644},
		"b.txt":           {"bee\n", 0o644},
		"c.txt":           {"sea\n", 0o644},
		"run.sh":          {"#!/bin/sh\necho hi\n", 0o755},
		"secret.txt":      {"mine\n", 0o600},
		"image.bin":       {"\x00\x01\x02\xff\xfe binary \x00", 0o644},
		"dir/x.go":        {"package x\n", 0o644},
		"dir/sub/y.go":    {"package y\n", 0o644},
		".gitignore":      {"*.log\nbuild/\n", 0o644},
		"debug.log":       {"ignored\n", 0o644},
		"build/out":       {"ignored too\n", 0o644},
		"node_modules/m":  {"dependency\n", 0o644},
		"crlf.txt":        {"line\r\nline\r\n", 0o644},
		".gitattributes":  {"*.txt text eol=crlf\n", 0o644},
		"space name.txt":  {"spaces\n", 0o644},
		"ünïcödé/ñ.md":    {"unicode\n", 0o644},
		"dir/sub/keep.md": {"keep\n", 0o644},
	}
	for name, f := range files {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(f.body), f.perm); err != nil {
			t.Fatal(err)
		}
		os.Chmod(path, f.perm)
	}
	if err := os.Symlink("b.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
}

// shellTurn is a turn of the agent done by shell commands only.
const shellTurn = `
sed -i 's/hello/goodbye/' a.txt
chmod +x a.txt
rm b.txt
mv c.txt moved.txt
chmod -x run.sh
head -c 3000 /dev/urandom > new.bin
rm -rf dir
ln -sfn moved.txt link
printf 'x\n' > crlf.txt
mkdir -p fresh/deep && echo new > fresh/deep/file.txt
echo changed > debug.log
`

func openStore(t testing.TB, work string) *Store {
	t.Helper()
	s, err := Open(context.Background(), t.TempDir(), work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRestoreUndoesAShellTurn(t *testing.T) {
	needGit(t)
	for _, inRepo := range []bool{true, false} {
		name := "plain directory"
		if inRepo {
			name = "git repository"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			work := t.TempDir()
			fixture(t, work)
			if inRepo {
				userGit(t, work, "init", "-q", "-b", "main")
				userGit(t, work, "add", "-A")
				userGit(t, work, "commit", "-q", "-m", "init")
				os.WriteFile(filepath.Join(work, "b.txt"), []byte("stashed\n"), 0o644)
				userGit(t, work, "stash", "-q")
				os.WriteFile(filepath.Join(work, "c.txt"), []byte("staged\n"), 0o644)
				userGit(t, work, "add", "c.txt")
				os.MkdirAll(filepath.Join(work, ".git", "hooks"), 0o755)
			}
			gitBefore := hashGitDir(t, work)
			start := state(t, work)

			s := openStore(t, work)
			before, err := s.Take(ctx, "ses1", "before step 1")
			if err != nil {
				t.Fatal(err)
			}
			sh(t, work, shellTurn)
			turned := state(t, work)
			after, err := s.Take(ctx, "ses1", "after step 1")
			if err != nil {
				t.Fatal(err)
			}

			patch, err := s.Diff(ctx, before.ID, after.ID)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, f := range patch.Files {
				got[f.Path] = f.Status.String()
				if f.Path == "new.bin" && !f.Binary {
					t.Errorf("new.bin not marked binary")
				}
				if f.Path == "a.txt" && (f.LinesAdded != 1 || f.LinesDeleted != 1) {
					t.Errorf("a.txt numstat +%d -%d, want +1 -1", f.LinesAdded, f.LinesDeleted)
				}
			}
			for path, want := range map[string]string{
				"a.txt": "modified", "b.txt": "deleted", "c.txt": "deleted", "moved.txt": "added",
				"run.sh": "modified", "new.bin": "added", "dir/x.go": "deleted", "link": "modified",
				"fresh/deep/file.txt": "added", "crlf.txt": "modified",
				"debug.log": "modified", // ignored, and small: kept (issue 26)
			} {
				if got[path] != want {
					t.Errorf("patch: %s is %q, want %q (all: %v)", path, got[path], want, got)
				}
			}
			if !strings.Contains(patch.Text, "-hello") || !strings.Contains(patch.Text, "+goodbye") ||
				!strings.Contains(patch.Text, "Binary files /dev/null and b/new.bin differ") {
				t.Errorf("patch text lacks the changes:\n%s", patch.Text)
			}

			res, err := s.Restore(ctx, "ses1", before.ID, RestoreOptions{Expect: after.ID})
			if err != nil {
				t.Fatal(err)
			}
			want := start // the ignored debug.log too: it is small
			sameState(t, "after undo", state(t, work), want)
			if len(res.Restored) != len(patch.Files) {
				t.Errorf("restored %d files, the turn changed %d", len(res.Restored), len(patch.Files))
			}
			if len(res.NotRestored) > 0 {
				t.Errorf("not restored: %v", res.NotRestored)
			}

			// Redo: restore what the undo replaced.
			if _, err := s.Restore(ctx, "ses1", res.Before, RestoreOptions{Expect: res.After}); err != nil {
				t.Fatal(err)
			}
			sameState(t, "after redo", state(t, work), turned)
			if inRepo {
				sameState(t, "the user's .git", hashGitDir(t, work), gitBefore)
			}
			if matches, _ := filepath.Glob(filepath.Join(work, "*.agent-restore.tmp")); len(matches) > 0 {
				t.Errorf("temporary files left: %v", matches)
			}
		})
	}
}

func TestOutsideChangeIsDetectedBeforeARestore(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	work := t.TempDir()
	fixture(t, work)
	s := openStore(t, work)
	before, _ := s.Take(ctx, "ses1", "before")
	sh(t, work, "echo agent >> a.txt")
	after, _ := s.Take(ctx, "ses1", "after")
	// The user edits a file in their editor.
	sh(t, work, "echo user >> b.txt")

	res, err := s.Restore(ctx, "ses1", before.ID, RestoreOptions{Expect: after.ID})
	var outside *OutsideChangesError
	if !errors.As(err, &outside) {
		t.Fatalf("restore = %v, want an *OutsideChangesError", err)
	}
	if len(outside.Files) != 1 || outside.Files[0].Path != "b.txt" || !strings.Contains(err.Error(), "b.txt") {
		t.Errorf("outside changes = %+v", outside.Files)
	}
	if body, _ := os.ReadFile(filepath.Join(work, "a.txt")); !strings.Contains(string(body), "agent") {
		t.Errorf("a refused restore touched a.txt: %q", body)
	}
	if len(res.Restored) != 0 {
		t.Errorf("a refused restore restored %v", res.Restored)
	}

	// Limited to the agent's file, the user's edit is out of scope.
	res, err = s.Restore(ctx, "ses1", before.ID, RestoreOptions{Expect: after.ID, Paths: []string{"a.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outside) != 1 || len(res.Restored) != 1 {
		t.Errorf("scoped restore: outside %v, restored %v", res.Outside, res.Restored)
	}
	if body, _ := os.ReadFile(filepath.Join(work, "b.txt")); !strings.Contains(string(body), "user") {
		t.Errorf("the user's edit was lost: %q", body)
	}

	// Forced, the whole tree goes back.
	if _, err := s.Restore(ctx, "ses1", before.ID, RestoreOptions{Expect: after.ID, Force: true}); err != nil {
		t.Fatal(err)
	}
	if body, _ := os.ReadFile(filepath.Join(work, "b.txt")); string(body) != "bee\n" {
		t.Errorf("forced restore left b.txt = %q", body)
	}
}

func TestSkippedFilesAreReportedAndLeftAlone(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "small.txt"), []byte("small\n"), 0o644)
	before := func() *Store {
		s, err := Open(ctx, t.TempDir(), work, Options{MaxFileBytes: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}()
	s := before
	snap0, _ := s.Take(ctx, "ses1", "before")
	// A large file appears (sparse: the size is what counts) and a
	// nested repository.
	big, _ := os.Create(filepath.Join(work, "big.dat"))
	big.Truncate(3 << 20)
	big.Close()
	userGit(t, filepath.Join(work), "init", "-q", "nested")
	snap1, err := s.Take(ctx, "ses1", "after")
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, sk := range snap1.Skipped {
		reasons[sk.Path] = sk.Reason
	}
	if reasons["big.dat"] != ReasonTooLarge || reasons["nested"] != ReasonNested {
		t.Errorf("skipped = %+v", snap1.Skipped)
	}
	got, err := s.Get(ctx, snap1.ID)
	if err != nil || len(got.Skipped) != 2 || got.Session != "ses1" || got.Label != "after" || got.Tree != snap1.Tree {
		t.Errorf("Get = %+v, %v", got, err)
	}
	// Restoring the snapshot from before neither deletes the large file
	// (no snapshot saved it) nor the nested repository.
	res, err := s.Restore(ctx, "ses1", snap0.ID, RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(work, "big.dat")); err != nil || fi.Size() != 3<<20 {
		t.Errorf("the large file: %v, %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(work, "nested", ".git", "HEAD")); err != nil {
		t.Errorf("the nested repository: %v", err)
	}
	// Restoring the later snapshot reports what it never held.
	res, err = s.Restore(ctx, "ses1", snap1.ID, RestoreOptions{Paths: []string{"big.dat", "../etc/passwd", "small.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	why := map[string]string{}
	for _, sk := range res.NotRestored {
		why[sk.Path] = sk.Reason
	}
	if !strings.HasPrefix(why["big.dat"], ReasonNotInSnap) || why["../etc/passwd"] != ReasonOutside {
		t.Errorf("not restored = %+v", res.NotRestored)
	}
}

func TestGitMissingTurnsCheckpointsOff(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Open(context.Background(), t.TempDir(), t.TempDir(), Options{})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "git is not installed") {
		t.Fatalf("Open without git = %v", err)
	}
	t.Log(err)
}

func TestRestoreRefusesWhileAnotherSessionRunsATool(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	work := t.TempDir()
	fixture(t, work)
	s := openStore(t, work)
	snap, _ := s.Take(ctx, "ses1", "before")
	// The other agent is a second Store on the same directory.
	other, err := Open(ctx, filepath.Dir(filepath.Dir(s.git.GitDir)), work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	end, err := other.BeginTool(ctx, "ses2")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Restore(ctx, "ses1", snap.ID, RestoreOptions{})
	var busy *BusyError
	if !errors.As(err, &busy) || busy.Session != "ses2" {
		t.Fatalf("restore during another session's tool = %v", err)
	}
	// Its own running tool does not block a session.
	endOwn, _ := s.BeginTool(ctx, "ses1")
	end()
	if _, err := s.Restore(ctx, "ses1", snap.ID, RestoreOptions{}); err != nil {
		t.Fatalf("restore after the tool ended: %v", err)
	}
	endOwn()
}

func TestPruneAndDropSession(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	work := t.TempDir()
	s := openStore(t, work)
	var ids []ID
	for i, session := range []string{"old", "old", "new", "new"} {
		body := strings.Repeat(fmt.Sprintf("version %d %s\n", i, session), 5000)
		os.WriteFile(filepath.Join(work, "f.txt"), []byte(body), 0o644)
		snap, err := s.Take(ctx, session, "")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, snap.ID)
	}
	st, err := s.Stats(ctx)
	if err != nil || st.Snapshots != 4 || st.Sessions != 2 || st.SizeBytes == 0 {
		t.Fatalf("stats = %+v, %v", st, err)
	}
	if err := s.DropSession(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, ids[0]); err == nil {
		t.Errorf("a dropped session's snapshot is still readable")
	}
	if _, err := s.Get(ctx, ids[3]); err != nil {
		t.Errorf("the other session's snapshot is gone: %v", err)
	}
	// Fresh snapshots outlive a keep set that does not name them yet.
	res, err := s.Prune(ctx, map[ID]bool{ids[3]: true}, 0)
	if err != nil || res.Removed != 0 {
		t.Fatalf("prune of fresh snapshots = %+v, %v", res, err)
	}
	refs, _ := s.refs(ctx, "refs/agent/")
	for i := range refs {
		refs[i].unixS -= 2 * pruneGraceS
	}
	drop, rest := splitKept(refs, map[ID]bool{ids[3]: true}, time.Now().Unix())
	if len(drop) != 1 || drop[0].id != ids[2] || len(rest) != 1 {
		t.Fatalf("splitKept: drop %v, rest %v", drop, rest)
	}
	if err := s.deleteRefs(ctx, drop); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.Stats(ctx); st.Snapshots != 1 {
		t.Errorf("after prune: %+v", st)
	}
	res, err = s.Prune(ctx, nil, 1)
	if err != nil || res.Removed != 1 {
		t.Fatalf("prune over the cap = %+v, %v", res, err)
	}
	if st, _ := s.Stats(ctx); st.Snapshots != 0 {
		t.Errorf("after the cap: %+v", st)
	}
}

func TestOneSnapshotPerSessionRefName(t *testing.T) {
	for _, bad := range []string{"", "a/b", "..", "a..b", "x.lock", ".hidden", "a b"} {
		if checkSession(bad) == nil {
			t.Errorf("session %q accepted", bad)
		}
	}
	if err := checkSession("01JABCDEF0123456789ABCDEFG"); err != nil {
		t.Error(err)
	}
}

func TestRestoreSwapsFilesDirectoriesAndSymlinks(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	work := t.TempDir()
	sh(t, work, "echo file > a; mkdir -p d/e && echo x > d/e/x; mkdir real && echo r > real/r; ln -s real l")
	start := state(t, work)
	s := openStore(t, work)
	before, _ := s.Take(ctx, "ses1", "before")
	// a becomes a directory, d/e a file, the symlink l a directory.
	sh(t, work, "rm a && mkdir a && echo in > a/in; rm -r d/e && echo now-a-file > d/e; rm l && mkdir l && echo y > l/y")
	turned := state(t, work)
	after, _ := s.Take(ctx, "ses1", "after")
	res, err := s.Restore(ctx, "ses1", before.ID, RestoreOptions{Expect: after.ID})
	if err != nil || len(res.NotRestored) > 0 {
		t.Fatalf("restore = %+v, %v", res, err)
	}
	sameState(t, "after undo", state(t, work), start)
	if _, err := s.Restore(ctx, "ses1", res.Before, RestoreOptions{Expect: res.After}); err != nil {
		t.Fatal(err)
	}
	sameState(t, "after redo", state(t, work), turned)

	// A directory named in Paths restores alone.
	sh(t, work, "rm -r a; echo other > real/r")
	if _, err := s.Restore(ctx, "ses1", after.ID, RestoreOptions{Paths: []string{"a/"}}); err != nil {
		t.Fatal(err)
	}
	if body, _ := os.ReadFile(filepath.Join(work, "a", "in")); string(body) != "in\n" {
		t.Errorf("a/in = %q", body)
	}
	if body, _ := os.ReadFile(filepath.Join(work, "real", "r")); string(body) != "other\n" {
		t.Errorf("a path outside Paths was restored: real/r = %q", body)
	}
}

func TestDataDirectoryInsideTheWorkTreeIsNotSnapshotted(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "f"), []byte("f\n"), 0o644)
	s, err := Open(ctx, filepath.Join(work, ".local", "agent"), work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(work, ".local", "agent", "agent.db"), []byte("db"), 0o644)
	os.WriteFile(filepath.Join(work, ".local", "other"), []byte("other\n"), 0o644)
	snap, err := s.Take(ctx, "ses1", "")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := s.git.Output(ctx, nil, "ls-tree", "-r", "--name-only", snap.Tree)
	if got := strings.Fields(string(files)); strings.Join(got, ",") != ".local/other,f" {
		t.Errorf("snapshot holds %v", got)
	}
}
