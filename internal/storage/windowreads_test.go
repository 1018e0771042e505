package storage

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/ctxloop/agent/internal/message"
)

// (review10) agent run opts its store in (Window.ThroughWriter) for its
// own session, but the same process runs that session's subagents on the
// same store (internal/task: po.Store, loop.Open → Window.Load), several
// at once (task.max_parallel), and the parent's todo tools read its
// window again (loop/wiring.go). The opt-in must cover the run's own
// open, not the windows read after it: a child's window read through the
// writer holds every other session's write until it ends.
func TestThroughWriterLeavesLaterWindowsToTheReaders(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	s.Window().ThroughWriter(true) // agent run's store
	run := windowSession(t, s, 30, 10)
	if _, err := s.Window().Load(ctx, run.ID, func(sk []Entry) string { return sk[len(sk)-1].Message.ID }); err != nil {
		t.Fatal(err) // the run's own open: through the writer
	}
	s.Window().ThroughWriter(false)      // cmd/agent/run.go, once the run's session is open
	child := windowSession(t, s, 30, 10) // a subagent's session, opened later
	sibling := &message.Session{Title: "sibling", Dir: "/w"}
	if err := s.CreateSession(ctx, sibling); err != nil {
		t.Fatal(err)
	}
	_, err := s.Window().Load(ctx, child.ID, func(sk []Entry) string {
		wctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		m := &message.Message{SessionID: sibling.ID, Role: message.RoleUser}
		if _, err := s.AddUserMessage(wctx, m, []*message.Part{{Type: message.PartText, Text: "meanwhile"}}, ""); err != nil {
			t.Errorf("a sibling subagent's write during a child's window read, in agent run's store: %v", err)
		}
		return sk[len(sk)-1].Message.ID
	})
	if err != nil {
		t.Fatal(err)
	}
}

// (review10) a message split over k of partChunks' arrays is copied k-1
// times, each copy of everything read of it so far (make+copy), and the
// arrays near a window's end are bounded to maxPartsPerMessage×left+1/16
// (17 parts for the last message): a last message of P parts allocates
// about P²/34 parts' worth. The copies should grow the merged run
// geometrically (append does), or the run be gathered once at the end.
func TestLongMessageSplitAllocatesLinearly(t *testing.T) {
	s := benchStore(t, t.TempDir())
	ctx := context.Background()
	sess := &message.Session{Title: "long", Dir: "/w"}
	if err := s.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	const parts = 4000
	e := Entry{Message: message.Message{ID: message.NewID(), Role: message.RoleAssistant, FinishReason: "stop"}}
	for j := range parts {
		e.Parts = append(e.Parts, message.Part{Type: message.PartText, Text: fmt.Sprint("p", j)})
	}
	if err := s.ImportHistory(ctx, sess.ID, []Entry{e}); err != nil {
		t.Fatal(err)
	}
	conn, err := s.rdb.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	entries, err := readWindowMessages(ctx, conn, sess.ID, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err = readWindowParts(ctx, conn, sess.ID, "", entries, partsPerMessage*len(entries), nil)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries[0].Parts) != parts {
		t.Fatalf("read %d parts, want %d", len(entries[0].Parts), parts)
	}
	partSize := uint64(unsafe.Sizeof(message.Part{}))
	// Arrays and one merged copy are ~2×; rows, strings and the state
	// pipe a few hundred bytes a part more. 16× the parts is ample.
	if got, limit := after.TotalAlloc-before.TotalAlloc, 16*parts*partSize; got > limit {
		t.Errorf("reading a %d-part message allocated %d KiB, want ≤ %d KiB (%d Part copies' worth: quadratic merge)",
			parts, got>>10, limit>>10, got/partSize)
	}
}
