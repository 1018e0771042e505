package loop

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

	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/snapshot"
)

func needGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

// treeState records every file and symlink under dir (but .git): type,
// permission bits and content, so that two states compare byte for byte
// and mode for mode.
func treeState(t testing.TB, dir string) map[string]string {
	t.Helper()
	st := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		fi, err := os.Lstat(path)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			st[rel] = "link " + target
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			st[rel] = fmt.Sprintf("%v %q", fi.Mode().Perm(), b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// dirHash hashes every file under dir with its path and mode.
func dirHash(t testing.TB, dir string) string {
	t.Helper()
	h := sha256.New()
	var paths []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil {
			paths = append(paths, path)
		}
		return nil
	})
	sort.Strings(paths)
	for _, p := range paths {
		fi, _ := os.Lstat(p)
		fmt.Fprintf(h, "%s %v %d\n", p, fi.Mode(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			h.Write(b)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func sameTree(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for p, w := range want {
		if g, ok := got[p]; !ok {
			t.Errorf("%s: %s missing (want %.60s)", what, p, w)
		} else if g != w {
			t.Errorf("%s: %s = %.60s, want %.60s", what, p, g, w)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: %s should not exist", what, p)
		}
	}
}

func runIn(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
}

// writeFixture lays out the tree the agent's turn changes.
func writeFixture(t testing.TB, dir string) {
	t.Helper()
	files := map[string]string{
		"a.txt": "alpha\nbeta\n", "b.txt": "one\ntwo\n", "c.txt": "to be removed\n", "d.txt": "to be moved\n",
		"script.sh": "#!/bin/sh\necho hi\n", "olddir/x.txt": "x\n", "olddir/sub/y.bin": "\x00\x01y",
	}
	for p, body := range files {
		path := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(dir, "olddir", "sub", "y.bin"), 0o755)
	os.Symlink("a.txt", filepath.Join(dir, "link"))
}

// mutatingTurn is a turn that writes, edits and runs shell commands that
// change files every way: sed -i, rm, mv, chmod +x, a new binary file, a
// deleted directory.
func mutatingTurn() []pt.Step {
	return []pt.Step{
		pt.ToolCalls(pt.Call{ID: "r", Name: "read", Args: `{"path":"a.txt"}`}),
		pt.ToolCalls(
			pt.Call{ID: "w", Name: "write", Args: `{"path":"new.txt","content":"brand new\n"}`},
			pt.Call{ID: "e", Name: "edit", Args: `{"path":"a.txt","old_string":"beta","new_string":"BETA"}`},
		),
		pt.ToolCalls(pt.Call{ID: "b", Name: "bash", Args: `{"command":"sed -i 's/one/ONE/' b.txt && rm c.txt && mv d.txt moved.txt && chmod +x script.sh && printf '\\000\\001\\002bin' > new.bin && rm -rf olddir && ln -sf b.txt link"}`}),
		pt.Text("Done."),
	}
}

func TestUndoRestoresEveryKindOfChange(t *testing.T) {
	needGit(t)
	for _, repo := range []bool{false, true} {
		t.Run(fmt.Sprintf("git=%v", repo), func(t *testing.T) {
			h := newHarness(t, mutatingTurn()...)
			writeFixture(t, h.dir)
			if repo {
				runIn(t, h.dir, "git", "init", "-q")
				runIn(t, h.dir, "git", "add", "-A")
				runIn(t, h.dir, "git", "commit", "-qm", "fixture")
				os.WriteFile(filepath.Join(h.dir, "b.txt"), []byte("one\ntwo\nstaged\n"), 0o644)
				runIn(t, h.dir, "git", "add", "b.txt")
				runIn(t, h.dir, "git", "stash", "-q")
			}
			gitBefore := dirHash(t, filepath.Join(h.dir, ".git"))
			start := treeState(t, h.dir)

			if res := h.turn("change everything"); res.Err != nil {
				t.Fatalf("turn: %+v", res)
			}
			changed := treeState(t, h.dir)
			if changed["moved.txt"] == "" || changed["new.bin"] == "" || changed["olddir/x.txt"] != "" || !strings.HasPrefix(changed["script.sh"], "-rwx") {
				t.Fatalf("the turn did not change the tree as scripted: %v", changed)
			}
			turns := Turns(h.r.History())
			if len(turns) != 1 || len(turns[0].Patches) != 2 {
				t.Fatalf("turns = %+v, want one turn with two patches", turns)
			}
			files := map[string]string{}
			for _, p := range turns[0].Patches {
				for _, f := range p.Files {
					files[f.Path] = f.Status
				}
			}
			for p, s := range map[string]string{"new.txt": "added", "a.txt": "modified", "c.txt": "deleted", "moved.txt": "added",
				"d.txt": "deleted", "olddir/sub/y.bin": "deleted", "new.bin": "added", "script.sh": "modified"} {
				if files[p] != s {
					t.Errorf("patch: %s is %q, want %q (%v)", p, files[p], s, files)
				}
			}

			res, err := h.r.Undo(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			sameTree(t, "after undo", treeState(t, h.dir), start)
			if res.UserText != "change everything" || len(res.Messages) != 5 {
				t.Errorf("undo result: text %q, %d messages", res.UserText, len(res.Messages))
			}
			if len(Turns(h.r.History())) != 0 {
				t.Error("the undone turn is still in the conversation")
			}
			if got := dirHash(t, filepath.Join(h.dir, ".git")); repo && got != gitBefore {
				t.Error("the user's .git changed")
			}

			if _, err := h.r.Redo(context.Background()); err != nil {
				t.Fatal(err)
			}
			sameTree(t, "after redo", treeState(t, h.dir), changed)
			if len(Turns(h.r.History())) != 1 {
				t.Error("redo did not bring the turn back")
			}
			if got := dirHash(t, filepath.Join(h.dir, ".git")); repo && got != gitBefore {
				t.Error("the user's .git changed")
			}
		})
	}
}

// TestUndoRefusesOutsideChanges: a file the turn changed, edited since by
// someone else, is named and nothing is touched; forced, the undo goes on.
// A file the turn did not touch is the user's and stays as it is.
func TestUndoRefusesOutsideChanges(t *testing.T) {
	needGit(t)
	h := newHarness(t,
		pt.ToolCalls(pt.Call{ID: "b", Name: "bash", Args: `{"command":"echo agent > a.txt; echo agent > b.txt"}`}),
		pt.Text("Done."))
	os.WriteFile(filepath.Join(h.dir, "a.txt"), []byte("mine\n"), 0o644)
	os.WriteFile(filepath.Join(h.dir, "b.txt"), []byte("mine\n"), 0o644)
	os.WriteFile(filepath.Join(h.dir, "other.txt"), []byte("mine\n"), 0o644)
	h.turn("overwrite")
	os.WriteFile(filepath.Join(h.dir, "a.txt"), []byte("edited in my editor\n"), 0o644)
	os.WriteFile(filepath.Join(h.dir, "other.txt"), []byte("edited too\n"), 0o644)

	_, err := h.r.Undo(context.Background())
	var oc *snapshot.OutsideChangesError
	if !errors.As(err, &oc) || len(oc.Files) != 1 || oc.Files[0].Path != "a.txt" {
		t.Fatalf("undo = %v, want outside changes naming a.txt only", err)
	}
	if b, _ := os.ReadFile(filepath.Join(h.dir, "b.txt")); string(b) != "agent\n" {
		t.Errorf("a refused undo touched b.txt: %q", b)
	}
	if len(Turns(h.r.History())) != 1 {
		t.Error("a refused undo took the turn back")
	}
	res, err := h.r.UndoForce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"a.txt": "mine\n", "b.txt": "mine\n", "other.txt": "edited too\n"} {
		if b, _ := os.ReadFile(filepath.Join(h.dir, p)); string(b) != want {
			t.Errorf("after a forced undo %s = %q, want %q", p, b, want)
		}
	}
	if d := DescribeRestore(res.Restore); !strings.Contains(d, "a.txt") || !strings.Contains(d, "b.txt") {
		t.Errorf("restore report %q does not name the files", d)
	}
}

// TestRewindConversationOnly: the next request lacks the rewound messages,
// the files stay, and the database still has every message.
func TestRewindConversationOnly(t *testing.T) {
	needGit(t)
	h := newHarness(t,
		pt.Text("first answer"),
		pt.ToolCalls(pt.Call{ID: "w", Name: "write", Args: `{"path":"f.txt","content":"kept\n"}`}),
		pt.Text("second answer"),
		pt.Text("third answer"))
	h.turn("first question")
	h.turn("second question")
	turns := Turns(h.r.History())
	res, err := h.r.Rewind(context.Background(), turns[1].MessageID, RewindOptions{Mode: message.RewindConversation})
	if err != nil {
		t.Fatal(err)
	}
	if res.Restore != nil || res.UserText != "second question" {
		t.Errorf("conversation-only rewind: %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(h.dir, "f.txt")); string(b) != "kept\n" {
		t.Errorf("f.txt = %q: a conversation-only rewind touched files", b)
	}
	h.turn("third question")
	reqs := h.srv.Requests()
	last := reqs[len(reqs)-1].Chat.Messages
	for _, m := range last {
		if strings.Contains(m.Content, "second") || len(m.ToolCalls) > 0 {
			t.Errorf("the request after the rewind still sends %q", m.Content)
		}
	}
	stored, _ := h.store.LoadHistory(context.Background(), h.r.Session().ID)
	rewound := 0
	for _, e := range stored {
		if e.Message.Rewound() {
			rewound++
		}
	}
	if rewound != 3 {
		t.Errorf("%d rewound messages stored, want 3 (user, tool step, answer)", rewound)
	}
	if _, err := h.r.Redo(context.Background()); err == nil {
		t.Error("redo after the conversation went on succeeded")
	}
	if snap := h.r.Reading(); snap.Total <= 0 {
		t.Errorf("calculator total %d after rewind", snap.Total)
	}
}

// TestFork copies a session up to a message; the fork's undo still finds
// its snapshots after the original is dropped.
func TestFork(t *testing.T) {
	needGit(t)
	h := newHarness(t,
		pt.ToolCalls(pt.Call{ID: "w", Name: "write", Args: `{"path":"f.txt","content":"v1\n"}`}),
		pt.Text("one"),
		pt.Text("two"))
	h.turn("first")
	h.turn("second")
	hist := h.r.History()
	var at string
	for _, e := range hist {
		if e.Message.Role == message.RoleAssistant && joinText(e.Parts, message.PartText) == "one" {
			at = e.Message.ID
		}
	}
	fork, err := h.r.Fork(context.Background(), at)
	if err != nil {
		t.Fatal(err)
	}
	fh, _ := h.store.LoadHistory(context.Background(), fork.ID)
	if got := Turns(fh); len(got) != 1 || got[0].Text != "first" || len(got[0].Patches) != 1 {
		t.Fatalf("fork turns = %+v", got)
	}
	if err := h.r.cp.store.DropSession(context.Background(), h.r.Session().ID); err != nil {
		t.Fatal(err)
	}
	if _, err := DiffTurn(context.Background(), h.r.cp.store, fh, 1); err != nil {
		t.Errorf("the fork lost its snapshots with the original's: %v", err)
	}
}

// TestCheckpointsOffWithoutGit: without git the runner notes once that
// checkpoints are off, and a turn with tools works.
func TestCheckpointsOffWithoutGit(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	h := newHarness(t,
		pt.ToolCalls(pt.Call{ID: "w", Name: "write", Args: `{"path":"f.txt","content":"v1\n"}`}),
		pt.Text("done"))
	if res := h.turn("write"); res.Err != nil {
		t.Fatalf("turn without git: %+v", res)
	}
	notes := h.r.Notes()
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "checkpoints are off: git is not installed") {
		t.Errorf("notes = %q", notes)
	}
	if _, err := h.r.Undo(context.Background()); err != nil {
		t.Errorf("undo without git (conversation) failed: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(h.dir, "f.txt")); string(b) != "v1\n" {
		t.Errorf("f.txt = %q", b)
	}
}

// TestDiffOfLastTurn: the turn's patch text names its files.
func TestDiffOfLastTurn(t *testing.T) {
	needGit(t)
	h := newHarness(t,
		pt.ToolCalls(pt.Call{ID: "w", Name: "write", Args: `{"path":"f.txt","content":"new line\n"}`}),
		pt.Text("done"))
	h.turn("write")
	d, err := h.r.Diff(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Patch.Files) != 1 || !strings.Contains(d.Patch.Text, "+new line") {
		t.Errorf("diff = %+v", d.Patch)
	}
}
