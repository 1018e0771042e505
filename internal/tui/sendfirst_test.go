package tui

import (
	"runtime"
	"sync/atomic"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestEnterStartsTheSendBeforeClearingTheEditor: on Enter, Update starts
// the runner's send before the rest of its work (issue 36 item 4): the
// editor's reset (textarea's Reset allocates 240 KB) comes after, and the
// editor is empty and remembers the text all the same.
func TestEnterStartsTheSendBeforeClearingTheEditor(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("one"), pt.Text("two")})
	h.sendTurn("first", 1)
	h.typeText("second message")
	var before, atStart uint64
	var editorAtStart string
	sendStarting = func() {
		atStart = heapAllocs()
		editorAtStart = h.m.editor.value()
	}
	t.Cleanup(func() { sendStarting = nil })
	before = heapAllocs()
	h.key("enter")
	sendStarting = nil
	if atStart == 0 {
		t.Fatal("no send started on Enter")
	}
	if got := atStart - before; got > 64<<10 {
		t.Errorf("allocated %d KiB from Enter until the send started, want ≤ 64 (the editor's reset before the send?)", got>>10)
	}
	if editorAtStart != "second message" {
		t.Errorf("editor at the send's start = %q, want the text still there (cleared after)", editorAtStart)
	}
	if v := h.m.editor.value(); v != "" {
		t.Errorf("editor after Enter = %q, want empty", v)
	}
	if n := len(h.m.editor.history); n == 0 || h.m.editor.history[n-1] != "second message" {
		t.Errorf("editor history = %q, want it to end with the text sent", h.m.editor.history)
	}
	h.waitFor("the second turn", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 2 })
}

// TestEnterRunsTheSendBeforeUpdateReturns: the send's goroutine runs
// as soon as Update starts it, not once Update, the frame and the rest
// of the event loop's work give the thread up (one thread here, so that
// nothing else could run it).
func TestEnterRunsTheSendBeforeUpdateReturns(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("one"), pt.Text("two")})
	h.sendTurn("first", 1)
	h.typeText("second message")
	var order atomic.Int32
	var ran, returned int32
	sendRunning = func() { ran = order.Add(1) }
	t.Cleanup(func() { sendRunning = nil })
	procs := runtime.GOMAXPROCS(1)
	t.Cleanup(func() { runtime.GOMAXPROCS(procs) }) // also when h.key fails
	h.key("enter")                                  // Update, then the frame
	returned = order.Add(1)
	runtime.GOMAXPROCS(procs)
	h.waitFor("the second turn", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 2 })
	sendRunning = nil
	if ran == 0 || ran > returned {
		t.Errorf("the send ran %d, Update returned %d: want the send first", ran, returned)
	}
}
