package main

// Issue 26 (checkpoints you can trust): attribution, coverage and failure,
// driven through the real binary.

import (
	"bytes"
	cryptorand "crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2EHandEditBetweenTurnsIsNotRewoundSilently: turn 1 creates a.txt,
// the user edits a.txt, turn 2 writes only b.txt. `agent rewind --turns 2`
// refuses naming a.txt; --force rewinds; `agent rewind --redo` brings the
// hand edit back.
func TestE2EHandEditBetweenTurnsIsNotRewoundSilently(t *testing.T) {
	needGitE2E(t)
	e := newEnv(t,
		pt.ToolCall("w1", "write", `{"path":"a.txt","content":"agent a\n"}`),
		pt.Text("turn one done"),
		pt.ToolCall("w2", "write", `{"path":"b.txt","content":"agent b\n"}`),
		pt.Text("turn two done"))
	a, b := filepath.Join(e.work, "a.txt"), filepath.Join(e.work, "b.txt")
	if res := e.run("", "run", "--yes", "change a"); res.code != 0 {
		t.Fatalf("turn 1: exit %d: %s", res.code, res.stderr)
	}
	os.WriteFile(a, []byte("my hand edit\n"), 0o644)
	if res := e.run("", "run", "--yes", "-c", "add b"); res.code != 0 {
		t.Fatalf("turn 2: exit %d: %s", res.code, res.stderr)
	}

	refused := e.run("", "rewind", "-c", "--turns", "2")
	if refused.code != 1 || !strings.Contains(refused.stderr, "a.txt") || !strings.Contains(refused.stderr, "--force") {
		t.Errorf("rewind --turns 2 over a hand edit: exit %d\n%s\n%s", refused.code, refused.stdout, refused.stderr)
	}
	if readFile(t, a) != "my hand edit\n" || readFile(t, b) != "agent b\n" {
		t.Fatalf("a refused rewind touched files: a=%q b=%q", readFile(t, a), readFile(t, b))
	}

	forced := e.run("", "rewind", "-c", "--turns", "2", "--force")
	if forced.code != 0 {
		t.Fatalf("rewind --force: exit %d\n%s\n%s", forced.code, forced.stdout, forced.stderr)
	}
	if !strings.HasPrefix(readFile(t, a), "<") || !strings.HasPrefix(readFile(t, b), "<") {
		t.Errorf("after rewind --force: a=%q b=%q", readFile(t, a), readFile(t, b))
	}

	redo := e.run("", "rewind", "-c", "--redo")
	if redo.code != 0 {
		t.Fatalf("rewind --redo: exit %d\n%s\n%s", redo.code, redo.stdout, redo.stderr)
	}
	if readFile(t, a) != "my hand edit\n" || readFile(t, b) != "agent b\n" {
		t.Errorf("after --redo: a=%q b=%q; want the hand edit and b back", readFile(t, a), readFile(t, b))
	}
}

// waitForFile polls for path while the process that creates it runs
// (another process: there is no event to wait on); it fails the test if
// exited reports first.
func waitForFile(t *testing.T, path string, exited <-chan error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case err := <-exited:
			t.Fatalf("the agent ended (%v) before %s appeared", err, path)
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
	}
}

// startAgent starts the binary in the work tree without waiting for it.
func (e *env) startAgent(args ...string) (wait func() result, exited <-chan error) {
	e.t.Helper()
	cmd := exec.Command(agentBin, args...)
	cmd.Dir, cmd.Env = e.work, e.vars
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	done := make(chan error, 1)
	var waitErr error
	finished := make(chan struct{})
	go func() { waitErr = cmd.Wait(); done <- waitErr; close(finished) }()
	e.t.Cleanup(func() { cmd.Process.Kill(); <-finished })
	return func() result {
		<-finished
		code := 0
		var ee *exec.ExitError
		if errors.As(waitErr, &ee) {
			code = ee.ExitCode()
		}
		return result{out.String(), errb.String(), code}
	}, done
}

// blockingBash is a bash call that says it started (touching started),
// waits for go, then runs then.
func blockingBash(id, started, goFile, then string) pt.Step {
	cmd := fmt.Sprintf("touch %s; while [ ! -e %s ]; do sleep 0.01; done; %s", started, goFile, then)
	args, _ := json.Marshal(map[string]string{"command": cmd})
	return pt.ToolCall(id, "bash", string(args))
}

// TestE2EUserSaveDuringABashStepIsNotClaimed: while the step's bash
// command runs, the user saves notes.txt; undo restores the command's
// out.txt but does not revert notes.txt without asking (it names it), and
// agent diff lists notes.txt as not the agent's.
func TestE2EUserSaveDuringABashStepIsNotClaimed(t *testing.T) {
	needGitE2E(t)
	sig := t.TempDir()
	started, goFile := filepath.Join(sig, "started"), filepath.Join(sig, "go")
	e := newEnv(t, blockingBash("b1", started, goFile, "echo made > out.txt"), pt.Text("done"))
	notes := filepath.Join(e.work, "notes.txt")
	os.WriteFile(notes, []byte("my notes\n"), 0o644)

	wait, exited := e.startAgent("run", "--yes", "make out.txt")
	waitForFile(t, started, exited)
	os.WriteFile(notes, []byte("my notes, saved during the step\n"), 0o644)
	os.WriteFile(goFile, nil, 0o644)
	if res := wait(); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	if readFile(t, filepath.Join(e.work, "out.txt")) != "made\n" {
		t.Fatalf("the step did not run")
	}

	undo := e.run("", "rewind", "-c")
	if undo.code == 0 {
		if got := readFile(t, notes); got != "my notes, saved during the step\n" {
			t.Fatalf("undo reverted the user's save: notes.txt = %q\n%s", got, undo.stdout)
		}
	} else if !strings.Contains(undo.stderr, "notes.txt") || !strings.Contains(undo.stderr, "--force") {
		t.Errorf("undo refused without naming notes.txt: exit %d\n%s", undo.code, undo.stderr)
	}
	if got := readFile(t, notes); got != "my notes, saved during the step\n" {
		t.Errorf("notes.txt = %q after the undo", got)
	}
}

// TestE2ETwoSessionsOverlappingInOneDirectory: session A's bash step runs
// while session B writes b.txt; each rewind names only its own file, and
// the other session's file survives.
func TestE2ETwoSessionsOverlappingInOneDirectory(t *testing.T) {
	needGitE2E(t)
	sig := t.TempDir()
	started, goFile := filepath.Join(sig, "started"), filepath.Join(sig, "go")
	e := newEnv(t,
		blockingBash("a1", started, goFile, "echo A > a.txt"),
		pt.ToolCall("b1", "write", `{"path":"b.txt","content":"B\n"}`),
		pt.Text("B done"),
		pt.Text("A done"))
	a, b := filepath.Join(e.work, "a.txt"), filepath.Join(e.work, "b.txt")

	waitA, exited := e.startAgent("run", "--yes", "session A makes a.txt")
	waitForFile(t, started, exited)
	if res := e.run("", "run", "--yes", "session B makes b.txt"); res.code != 0 {
		t.Fatalf("session B: exit %d: %s", res.code, res.stderr)
	}
	os.WriteFile(goFile, nil, 0o644)
	if res := waitA(); res.code != 0 {
		t.Fatalf("session A: exit %d: %s", res.code, res.stderr)
	}
	if readFile(t, a) != "A\n" || readFile(t, b) != "B\n" {
		t.Fatalf("the sessions did not write: a=%q b=%q", readFile(t, a), readFile(t, b))
	}
	var rows []sessionRow
	json.Unmarshal([]byte(e.run("", "sessions", "--json").stdout), &rows)
	if len(rows) != 2 {
		t.Fatalf("sessions: %+v", rows)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].CreatedAt.Before(rows[j].CreatedAt) })
	idA, idB := rows[0].ID, rows[1].ID

	diffA := e.run("", "diff", "--session", idA)
	if !strings.Contains(diffA.stdout, "a.txt") || strings.Contains(diffA.stdout, "b.txt") || !strings.Contains(diffA.stderr, "not the agent's: b.txt (added, by session "+idB+")") {
		t.Errorf("agent diff of A: exit %d\n%s\n%s", diffA.code, diffA.stdout, diffA.stderr)
	}
	rwA := e.run("", "rewind", "--session", idA, "--code")
	if rwA.code != 0 || !strings.Contains(rwA.stdout, "a.txt") || strings.Contains(rwA.stdout+rwA.stderr, "b.txt") {
		t.Errorf("rewind of A: exit %d\n%s\n%s", rwA.code, rwA.stdout, rwA.stderr)
	}
	if !strings.HasPrefix(readFile(t, a), "<") || readFile(t, b) != "B\n" {
		t.Errorf("after A's rewind: a=%q b=%q; want a gone, b kept", readFile(t, a), readFile(t, b))
	}
	rwB := e.run("", "rewind", "--session", idB, "--code")
	if rwB.code != 0 || !strings.Contains(rwB.stdout, "b.txt") || strings.Contains(rwB.stdout+rwB.stderr, "a.txt") {
		t.Errorf("rewind of B: exit %d\n%s\n%s", rwB.code, rwB.stdout, rwB.stderr)
	}
	if !strings.HasPrefix(readFile(t, b), "<") {
		t.Errorf("after B's rewind: b=%q; want it gone", readFile(t, b))
	}
}

// TestE2EModesComeBackExactly: a step chmods run.sh 0755 → 0600 and
// key.pem 0640 → 0644; undo gives both their exact modes back, and
// leaves the timestamps of a file it did not touch alone.
func TestE2EModesComeBackExactly(t *testing.T) {
	needGitE2E(t)
	e := newEnv(t,
		pt.ToolCall("b1", "bash", `{"command":"chmod 0600 run.sh; chmod 0644 key.pem"}`),
		pt.Text("done"))
	run, key, other := filepath.Join(e.work, "run.sh"), filepath.Join(e.work, "key.pem"), filepath.Join(e.work, "other.txt")
	os.WriteFile(run, []byte("#!/bin/sh\necho hi\n"), 0o755)
	os.Chmod(run, 0o755)
	os.WriteFile(key, []byte("secret\n"), 0o640)
	os.Chmod(key, 0o640)
	os.WriteFile(other, []byte("untouched\n"), 0o644)
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(other, old, old)
	if res := e.run("", "run", "--yes", "chmod them"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	if fi, _ := os.Stat(run); fi.Mode().Perm() != 0o600 {
		t.Fatalf("the step did not chmod: %v", fi.Mode())
	}
	if res := e.run("", "rewind", "-c", "--code"); res.code != 0 {
		t.Fatalf("rewind: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	for path, want := range map[string]os.FileMode{run: 0o755, key: 0o640} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s after rewind: %v (%v), want %v", filepath.Base(path), fi.Mode().Perm(), err, want)
		}
	}
	if fi, _ := os.Stat(other); !fi.ModTime().Equal(old) {
		t.Errorf("other.txt's mtime changed: %v, want %v", fi.ModTime(), old)
	}
}

// TestE2EGitCleanOfIgnoredFiles: the model runs `git clean -fdx && rm
// big.bin`. agent diff names what cannot come back (the 3 MB ignored
// data/big.csv over the 1 MB limit, the 3 MB big.bin over 2 MB); the
// rewind restores the small ignored .env and data/small.csv and names the
// large ones.
func TestE2EGitCleanOfIgnoredFiles(t *testing.T) {
	needGitE2E(t)
	e := newEnv(t,
		pt.ToolCall("b1", "bash", `{"command":"git clean -fdxq && rm big.bin"}`),
		pt.Text("cleaned"))
	w := func(rel string, body []byte) {
		os.MkdirAll(filepath.Dir(filepath.Join(e.work, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(e.work, rel), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w(".gitignore", []byte(".env\ndata/\n"))
	w("big.bin", bytes.Repeat([]byte("b"), 3<<20))
	gitRepo(t, e)
	w(".env", []byte("TOKEN=local\n"))
	w("data/small.csv", []byte("a,b\n1,2\n"))
	w("data/big.csv", bytes.Repeat([]byte("1,2\n"), (3<<20)/4))
	if res := e.run("", "run", "--yes", "clean up"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.work, ".env")); err == nil {
		t.Fatal("the step did not clean")
	}

	diff := e.run("", "diff", "-c")
	for _, want := range []string{"not restorable: data/big.csv (ignored, 3 MB > 1 MB, deleted)", "not restorable: big.bin (3 MB > 2 MB, deleted)"} {
		if !strings.Contains(diff.stderr, want) {
			t.Errorf("agent diff lacks %q: exit %d\n%s\n%s", want, diff.code, diff.stdout, diff.stderr)
		}
	}
	if !strings.Contains(diff.stdout, ".env") || !strings.Contains(diff.stdout, "data/small.csv") {
		t.Errorf("agent diff lacks the kept ignored files:\n%s", diff.stdout)
	}

	rw := e.run("", "rewind", "-c", "--code")
	if rw.code != 0 {
		t.Fatalf("rewind: exit %d\n%s\n%s", rw.code, rw.stdout, rw.stderr)
	}
	if readFile(t, filepath.Join(e.work, ".env")) != "TOKEN=local\n" || readFile(t, filepath.Join(e.work, "data/small.csv")) != "a,b\n1,2\n" {
		t.Errorf("the small ignored files are not back:\n%s", rw.stdout)
	}
	for _, want := range []string{"not restorable: data/big.csv", "not restorable: big.bin"} {
		if !strings.Contains(rw.stdout, want) {
			t.Errorf("rewind output lacks %q:\n%s", want, rw.stdout)
		}
	}
}

// TestE2EDiskFullDuringASnapshotLeavesASessionThatOpens: the data
// directory is a 6 MB tmpfs and the work tree holds 7.5 MB that does not
// compress; the step's snapshot fails for want of space. The step runs
// with a visible warning, the snapshot leaves nothing behind, and the
// session opens again. Needs root for the mount (skipped otherwise).
func TestE2EDiskFullDuringASnapshotLeavesASessionThatOpens(t *testing.T) {
	needGitE2E(t)
	e := newEnv(t,
		pt.ToolCall("b1", "bash", `{"command":"echo hi > out.txt"}`),
		pt.Text("wrote it"),
		pt.Text("still here"))
	os.MkdirAll(e.data, 0o700)
	if err := syscall.Mount("tmpfs", e.data, "tmpfs", 0, "size=6m,mode=0700"); err != nil {
		t.Skipf("cannot mount a small tmpfs here (%v)", err)
	}
	t.Cleanup(func() { syscall.Unmount(e.data, syscall.MNT_DETACH) })
	rnd := make([]byte, 1500<<10)
	for i := range 5 {
		if _, err := cryptorand.Read(rnd); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(e.work, fmt.Sprintf("blob%d.bin", i)), rnd, 0o644)
	}

	res := e.run("", "run", "--yes", "write out.txt")
	if res.code != 0 || !strings.Contains(res.stderr, "checkpoint") || !strings.Contains(res.stderr, "failed") {
		t.Errorf("run with a full disk: exit %d, stderr:\n%s", res.code, res.stderr)
	}
	if readFile(t, filepath.Join(e.work, "out.txt")) != "hi\n" {
		t.Errorf("the step did not run: out.txt = %q", readFile(t, filepath.Join(e.work, "out.txt")))
	}
	if left := snapshotDiskBytes(e); left > 1<<20 {
		t.Errorf("the failed snapshot left %d bytes in the store", left)
	}
	again := e.run("", "run", "-c", "are you there")
	if again.code != 0 || !strings.Contains(again.stdout, "still here") {
		t.Errorf("the session does not open again: exit %d\n%s\n%s", again.code, again.stdout, again.stderr)
	}
}

// snapshotDiskBytes is the size of the env's snapshot stores.
func snapshotDiskBytes(e *env) int64 {
	var total int64
	filepath.WalkDir(filepath.Join(e.data, "snapshots"), func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				total += fi.Size()
			}
		}
		return nil
	})
	return total
}
