package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWaitSpentBeforeTheEditIsNoted: when the wait is spent before the
// change is done (a cold server's start, a slow tool), the edit's result
// says diagnostics were unavailable, once, instead of saying nothing as
// if the edit had introduced no error. Seen in the chat: a cold gopls
// took the whole 2 s wait and the edit that broke main.go said nothing.
func TestWaitSpentBeforeTheEditIsNoted(t *testing.T) {
	const wait = 300 * time.Millisecond
	s := New(fakeConfig(t, "good", int(wait/time.Millisecond)))
	env := session(t, s)
	path := filepath.Join(env.Dir, "a.fk")
	if err := os.WriteFile(path, []byte("one\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	after := s.BeforeEdit(context.Background(), env, path)
	if after == nil {
		t.Fatal("no server for a.fk")
	}
	if err := os.WriteFile(path, []byte("one\nBAD\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	time.Sleep(wait + 50*time.Millisecond) // the tool's run outlasts the wait
	note := after(context.Background())
	if !strings.Contains(note, "diagnostics unavailable") {
		t.Fatalf("the edit's note is %q: an edit whose wait was spent must say diagnostics were unavailable", note)
	}
}
