package loop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/todo"
)

// windowHistoryFrom is cacheHistoryFrom with what a stored session holds
// besides: compaction markers naming the summary that follows them, some
// with a kept head ("summarise after here") or undone, and todo_write
// calls, some of them rewound.
func windowHistoryFrom(data []byte) []message.Entry {
	h := cacheHistoryFrom(data)
	pick := func(i int) byte {
		if len(data) == 0 {
			return byte(i)
		}
		return data[(i*7+3)%len(data)]
	}
	for i := range h {
		e := &h[i]
		b := pick(i)
		for j := range e.Parts {
			c := e.Parts[j].Compaction
			if c == nil {
				continue
			}
			cc := *c
			for k := i + 1; k < len(h); k++ {
				if h[k].Message.Summary {
					if b%4 != 3 {
						cc.SummaryID = h[k].Message.ID
					}
					break
				}
			}
			if b%5 == 1 && i > 0 {
				cc.HeadUpTo = h[int(b)%i].Message.ID
			}
			if b%6 == 2 {
				cc.UndoneAt = time.Unix(3, 0)
			}
			e.Parts[j].Compaction = &cc
		}
		if e.Message.Role == message.RoleAssistant && !e.Message.Summary && b%3 == 0 {
			input := fmt.Sprintf(`{"todos":[{"id":"1","text":"step %d","status":"in_progress"}]}`, i)
			e.Parts = append(e.Parts, message.Part{ID: fmt.Sprintf("%08dt", i), Type: message.PartTool, Tool: &message.ToolState{
				CallID: fmt.Sprintf("call_todo%d", i), Name: todo.WriteName, Status: message.ToolCompleted, Input: input, Output: "ok"}})
		}
	}
	return h
}

// checkOpenWindow stores history in a session, opens it as Open does (the
// window) and as it did before (the whole history), and fails unless the
// next request, its estimate and the calculator's reading are the same.
func checkOpenWindow(t *testing.T, history []message.Entry) (windowLen, wholeLen int) {
	t.Helper()
	h := newHarness(t)
	ctx := context.Background()
	sess := &message.Session{Model: h.r.Session().Model, Dir: h.dir}
	if err := h.store.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	if err := h.store.ImportHistory(ctx, sess.ID, history); err != nil {
		t.Fatal(err)
	}
	if err := h.store.AddPin(ctx, &message.Pin{SessionID: sess.ID, Text: "keep the API stable"}); err != nil {
		t.Fatal(err)
	}
	r, err := Open(ctx, h.r.opt, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	window := r.state.history
	whole, err := h.store.LoadHistory(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := WholeHistory(ctx, r); err != nil || len(got)+len(whole) > 0 && !reflect.DeepEqual(got, whole) {
		t.Fatalf("WholeHistory holds %d entries (%v), the store %d", len(got), err, len(whole))
	}
	sent := func() ([]byte, int64) {
		req := r.stepper.buildRequest(ctx)
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		return b, r.comp.requestEstimate(r.state.history)
	}
	reqWindow, estWindow := sent()
	readWindow := r.Reading()
	todoWindow := todoSent(r.state.history)

	r.state.history = whole // the whole-history path: what Open read before
	r.stepper.reqc = requestCache{}
	r.restoreCalculator()
	reqWhole, estWhole := sent()
	if !bytes.Equal(reqWindow, reqWhole) {
		t.Fatalf("the window's request differs from the whole history's:\n%s\n%s", reqWindow, reqWhole)
	}
	if estWindow != estWhole {
		t.Errorf("estimate %d from the window, %d from the whole history", estWindow, estWhole)
	}
	if got := r.Reading(); !reflect.DeepEqual(readWindow, got) {
		t.Errorf("reading from the window %+v, from the whole history %+v", readWindow, got)
	}
	if got := todoSent(whole); got != todoWindow {
		t.Errorf("todo sent from the window %q, from the whole history %q", todoWindow, got)
	}
	return len(window), len(whole)
}

// historySeeds are the fuzzed histories (windowHistoryFrom,
// cacheHistoryFrom) the open-window and packing oracles run over.
var historySeeds = [][]byte{
	{0, 2, 3, 4, 5, 0, 2, 4, 0},
	{0, 2, 4, 7, 8, 0, 2, 13, 22, 0, 10, 2, 5, 5, 4},
	{2, 4, 4, 4, 8, 2, 6, 1, 0, 2, 4, 5, 15, 8, 1, 2, 3},
	{0, 2, 3, 4, 7, 8, 0, 2, 3, 5, 0, 2, 4, 16, 8, 0, 2, 3, 4, 0, 2, 3, 25, 8, 9, 2, 4, 3},
	{},
}

// TestOpenWindowSendsWhatTheWholeHistorySends is the oracle of "open
// what you send": over the request cache's fuzzed sessions and stored
// sessions with several compactions, the request an opened session sends
// next is byte for byte what the whole history sends.
func TestOpenWindowSendsWhatTheWholeHistorySends(t *testing.T) {
	for i, data := range historySeeds {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			window, whole := checkOpenWindow(t, windowHistoryFrom(data))
			t.Logf("window %d of %d entries", window, whole)
		})
	}
}

// FuzzOpenWindow is TestOpenWindowSendsWhatTheWholeHistorySends over any
// history.
func FuzzOpenWindow(f *testing.F) {
	f.Add([]byte{0, 2, 3, 4, 5, 0, 2, 4, 0})
	f.Add([]byte{0, 2, 3, 4, 7, 8, 0, 2, 3, 5, 0, 2, 4, 16, 8, 0, 2, 3, 4, 0, 2, 3, 25, 8, 9, 2, 4, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 200 {
			return
		}
		checkOpenWindow(t, windowHistoryFrom(data))
	})
}

// compactedSession is a stored session of turns turns with a compaction
// (marker, summary, a kept tail of two turns) every 10 turns, and a todo
// list written in turn todoAt (none when negative).
func compactedSession(turns, todoAt int) []message.Entry {
	var h []message.Entry
	id := 0
	next := func() string { id++; return fmt.Sprintf("%08d", id) }
	var tail string
	for i := range turns {
		if i > 0 && i%10 == 0 {
			marker, sum := next(), next()
			h = append(h, message.Entry{Message: message.Message{ID: marker, Role: message.RoleUser, Synthetic: true},
				Parts: []message.Part{{ID: next(), Type: message.PartCompaction, Compaction: &message.CompactionState{SummaryID: sum, TailFrom: tail}}}},
				message.Entry{Message: message.Message{ID: sum, Role: message.RoleAssistant, Summary: true},
					Parts: []message.Part{{ID: next(), Type: message.PartText, Text: fmt.Sprintf("summary %d", i/10)}}})
		}
		u := next()
		if i%10 == 8 {
			tail = u
		}
		h = append(h, message.Entry{Message: message.Message{ID: u, Role: message.RoleUser},
			Parts: []message.Part{{ID: next(), Type: message.PartText, Text: fmt.Sprintf("question %d", i)}}})
		a := message.Entry{Message: message.Message{ID: next(), Role: message.RoleAssistant, FinishReason: "stop"},
			Parts: []message.Part{{ID: next(), Type: message.PartText, Text: fmt.Sprintf("answer %d", i)},
				{ID: next(), Type: message.PartTool, Tool: &message.ToolState{CallID: fmt.Sprintf("c%d", i), Name: "bash",
					Status: message.ToolCompleted, Input: `{"command":"ls"}`, Output: "a b c", CompactedAt: time.Unix(int64(i%2), 0)}},
				{ID: next(), Type: message.PartStepFinish, Step: &message.StepState{Usage: message.Usage{Input: 1000 + int64(i), Output: 10}, FinishReason: "stop"}}}}
		if i == todoAt {
			a.Parts = append(a.Parts, message.Part{ID: next(), Type: message.PartTool, Tool: &message.ToolState{CallID: "t1", Name: todo.WriteName,
				Status: message.ToolCompleted, Input: `{"todos":[{"id":"1","text":"ship it","status":"in_progress"}]}`, Output: "ok"}})
		}
		h = append(h, a)
	}
	return h
}

// TestOpenReadsTheWindowOnly: a session of 60 turns and 5 compactions
// opens holding its newest compaction's kept tail on, not the whole
// history, and sends what the whole one sends; a todo list written
// before that is read with what lies between.
func TestOpenReadsTheWindowOnly(t *testing.T) {
	for _, c := range []struct {
		todoAt, want int
	}{
		{-1, 26},     // the kept tail (2 turns), the marker, the summary, 10 turns
		{55, 26},     // the list inside the window
		{45, 26 + 5}, // from the list's answer, 2.5 turns before the kept tail
	} {
		window, whole := checkOpenWindow(t, compactedSession(60, c.todoAt))
		if window != c.want {
			t.Errorf("todo list in turn %d: Open read %d of %d entries, want %d", c.todoAt, window, whole, c.want)
		}
	}
}

// TestOpenWindowOfTheNewestCompactions is the oracle over sessions of
// many compactions, where the store reads the skeleton of the newest
// ones only (storage/skeleton.go), with each compaction in turn undone,
// given a kept head reaching back, or naming no summary, and the todo
// list before and inside the newest ones: what is sent is what the whole
// history sends.
func TestOpenWindowOfTheNewestCompactions(t *testing.T) {
	markers := func(h []message.Entry) []*message.CompactionState {
		var cs []*message.CompactionState
		for i := range h {
			for j := range h[i].Parts {
				if c := h[i].Parts[j].Compaction; c != nil {
					cs = append(cs, c)
				}
			}
		}
		return cs
	}
	const turns = 80 // 7 compactions
	for k := range 7 {
		for _, change := range []string{"undone", "head", "unnamed", "tail"} {
			t.Run(fmt.Sprint(change, k), func(t *testing.T) {
				h := compactedSession(turns, 15+k*9)
				c := markers(h)[k]
				switch change {
				case "undone":
					c.UndoneAt = time.Unix(5, 0)
				case "head":
					c.HeadUpTo = h[len(h)/(k+2)].Message.ID
				case "unnamed":
					c.SummaryID = ""
				case "tail":
					c.TailFrom = h[3].Message.ID
				}
				checkOpenWindow(t, h)
			})
		}
	}
}
