package main

// Issue 26 (checkpoints you can trust): attribution, coverage and failure,
// driven through the real binary.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
