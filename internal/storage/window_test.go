package storage

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// windowSession stores a session of turns turns (a question; an answer
// with text, a bash call and, every 7th turn, a todo_write) with a
// compaction marker and its summary every 10 turns.
func windowSession(t testing.TB, s *Store, turns, every int) *message.Session {
	t.Helper()
	ctx := context.Background()
	sess := &message.Session{Title: "window", Dir: "/w"}
	if err := s.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	var h []Entry
	for i := range turns {
		if i > 0 && i%every == 0 {
			marker, sum := message.NewID(), message.NewID()
			h = append(h, Entry{Message: message.Message{ID: marker, Role: message.RoleUser, Synthetic: true},
				Parts: []message.Part{{Type: message.PartCompaction, Compaction: &message.CompactionState{SummaryID: sum}}}},
				Entry{Message: message.Message{ID: sum, Role: message.RoleAssistant, Summary: true},
					Parts: []message.Part{{Type: message.PartText, Text: "summary"}}})
		}
		a := Entry{Message: message.Message{Role: message.RoleAssistant, FinishReason: "stop"},
			Parts: []message.Part{{Type: message.PartText, Text: fmt.Sprintf("answer %d", i)},
				{Type: message.PartTool, Tool: &message.ToolState{CallID: fmt.Sprint(i), Name: "bash", Status: message.ToolCompleted,
					Input: `{"command":"ls"}`, Output: strings.Repeat("output line\n", 50)}}}}
		if i%7 == 3 {
			a.Parts = append(a.Parts, message.Part{Type: message.PartTool, Tool: &message.ToolState{CallID: fmt.Sprint("t", i), Name: "todo_write",
				Status: message.ToolCompleted, Input: `{"todos":[]}`, Output: "ok"}})
		}
		h = append(h, Entry{Message: message.Message{Role: message.RoleUser},
			Parts: []message.Part{{Type: message.PartText, Text: fmt.Sprintf("question %d", i)}}}, a)
	}
	for i := range h {
		h[i].Message.ID = message.NewID() // time-ordered, in the order written
		if h[i].Message.Summary {
			for j := range h[i-1].Parts {
				if c := h[i-1].Parts[j].Compaction; c != nil {
					c.SummaryID = h[i].Message.ID
				}
			}
		}
	}
	if err := s.ImportHistory(ctx, sess.ID, h); err != nil {
		t.Fatal(err)
	}
	return sess
}

// lastMarker is a from function: the newest message holding a compaction
// part.
func lastMarker(skeleton []Entry) string {
	for i := len(skeleton) - 1; i >= 0; i-- {
		for _, p := range skeleton[i].Parts {
			if p.Type == message.PartCompaction {
				return skeleton[i].Message.ID
			}
		}
	}
	return ""
}

// Window.Load hands its caller the summaries and the messages of
// compaction parts and todo_write calls with those parts only, reads
// from where it says on, and Before reads the rest: together, what
// LoadHistory reads.
func TestWindowLoadsFromWhereTheSkeletonSays(t *testing.T) {
	s := benchStore(t, t.TempDir())
	ctx := context.Background()
	sess := windowSession(t, s, 35, 10)
	whole, err := s.LoadHistory(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var skel []Entry
	window, err := s.Window().Load(ctx, sess.ID, func(sk []Entry) string { skel = sk; return lastMarker(sk) })
	if err != nil {
		t.Fatal(err)
	}
	summaries, markers, todos := 0, 0, 0
	for _, e := range skel {
		if e.Message.Summary {
			summaries++
			if len(e.Parts) != 0 {
				t.Errorf("summary %s read with %d parts, want none", e.Message.ID, len(e.Parts))
			}
		}
		for _, p := range e.Parts {
			switch {
			case p.Type == message.PartCompaction:
				markers++
			case p.Tool != nil && p.Tool.Name == "todo_write":
				todos++
			default:
				t.Errorf("skeleton holds a %s part", p.Type)
			}
		}
	}
	if summaries != 3 || markers != 3 || todos != 1 {
		t.Errorf("skeleton: %d summaries, %d markers, %d todo lists; want 3, 3, 1", summaries, markers, todos)
	}
	if len(window) != 2+2*5 || window[0].Message.ID != lastMarker(skel) {
		t.Fatalf("window of %d entries from %s, want 12 from the last marker", len(window), window[0].Message.ID)
	}
	before, err := s.Window().Before(ctx, sess.ID, window[0].Message.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := append(before, window...); !reflect.DeepEqual(got, whole) {
		t.Fatalf("Before and the window: %d entries, LoadHistory %d", len(got), len(whole))
	}
	if all, err := s.Window().Load(ctx, sess.ID, func([]Entry) string { return "" }); err != nil || !reflect.DeepEqual(all, whole) {
		t.Fatalf("a window from the start: %d entries (%v), LoadHistory %d", len(all), err, len(whole))
	}
	if none, err := s.Window().Before(ctx, sess.ID, whole[0].Message.ID); err != nil || none != nil {
		t.Fatalf("before the first message: %d entries (%v)", len(none), err)
	}
}

// BenchmarkWindowLoad reads what a session of 20,000 turns (about 46,000
// parts, a compaction every 100 turns) sends — its skeleton and the window from
// the last marker on — against LoadHistory in the same run.
func BenchmarkWindowLoad(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b, b.TempDir())
	sess := windowSession(b, s, 20000, 100)
	b.Run("Window", func(b *testing.B) {
		cpu := processCPU()
		for b.Loop() {
			if _, err := s.Window().Load(ctx, sess.ID, lastMarker); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64((processCPU()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	})
	b.Run("LoadHistory", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.LoadHistory(ctx, sess.ID); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// processCPU is the process's CPU time so far (user + system): a
// benchmark's figure that a busy machine disturbs less than wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
