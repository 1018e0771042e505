package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2ETUIDiffThenUndo (issue 13): in the real binary under tmux, a
// turn changes two files; /diff shows both; /undo restores them and puts
// the message back in the editor.
func TestE2ETUIDiffThenUndo(t *testing.T) {
	needGitE2E(t)
	e := newEnv(t,
		pt.ToolCall("r1", "read", `{"path":"a.txt"}`),
		pt.ToolCalls(
			pt.Call{ID: "w1", Name: "write", Args: `{"path":"a.txt","content":"alpha changed\n"}`},
			pt.Call{ID: "w2", Name: "write", Args: `{"path":"b.txt","content":"brand new file\n"}`},
		),
		pt.Text("both files are written"))
	e.writeUserConfig(`{"permissions": {"write": "allow"}}`)
	a, b := filepath.Join(e.work, "a.txt"), filepath.Join(e.work, "b.txt")
	if err := os.WriteFile(a, []byte("alpha original\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	s := startTUI(t, e)
	s.send("rewrite a and add b")
	s.waitText("both files are written")
	s.idle()
	s.waitText("changed 2 files +2 −1")
	if readFile(t, a) != "alpha changed\n" || readFile(t, b) != "brand new file\n" {
		t.Fatalf("the turn did not write: a=%q b=%q", readFile(t, a), readFile(t, b))
	}

	s.send("/diff")
	screen := s.waitText("Diff of turn 1")
	for _, want := range []string{"2 files changed +2 −1", "a.txt  modified", "b.txt  added", "alpha original", "alpha changed", "brand new file"} {
		if !strings.Contains(screen, want) {
			t.Errorf("/diff lacks %q:\n%s", want, screen)
		}
	}
	s.keys("Escape")
	s.waitFor("the overlay to close", func(screen string) bool { return !strings.Contains(screen, "Diff of turn 1") })

	s.send("/undo")
	screen = s.waitText("restored 2 file(s)")
	if readFile(t, a) != "alpha original\n" {
		t.Errorf("a.txt = %q after /undo", readFile(t, a))
	}
	if _, err := os.Stat(b); !os.IsNotExist(err) {
		t.Errorf("b.txt still there after /undo (%v)", err)
	}
	if !strings.Contains(screen, "› rewrite a and add b") {
		t.Errorf("the message is not back in the editor:\n%s", screen)
	}
	if strings.Contains(screen, "both files are written") || strings.Contains(screen, "▌ rewrite a and add b") {
		t.Errorf("the undone turn is still shown:\n%s", screen)
	}
}
