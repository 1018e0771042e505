package storage

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// turnsOf builds n turns: a user text, and an assistant message with a
// text, a finished tool call and a step-finish.
func turnsOf(n int) []Entry {
	var out []Entry
	for i := range n {
		out = append(out,
			Entry{Message: message.Message{Role: message.RoleUser},
				Parts: []message.Part{{Type: message.PartText, Text: fmt.Sprintf("question %d", i)}}},
			Entry{Message: message.Message{Role: message.RoleAssistant, Model: "m", FinishReason: "stop"},
				Parts: []message.Part{
					{Type: message.PartText, Text: fmt.Sprintf("answer %d", i)},
					{Type: message.PartTool, Tool: &message.ToolState{CallID: fmt.Sprintf("c%d", i), Name: "read",
						Status: message.ToolCompleted, Input: `{}`, Output: fmt.Sprintf("output %d", i)}},
					{Type: message.PartStepFinish, Step: &message.StepState{FinishReason: "stop"}},
				}})
	}
	return out
}

// TestLoadTailIsTheEndOfTheHistory: the tail is exactly the last messages
// LoadHistory returns, parts and unfinished streams included, and says
// whether older messages exist.
func TestLoadTailIsTheEndOfTheHistory(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess := &message.Session{Title: "t"}
	if err := s.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	if tail, more, err := s.LoadTail(ctx, sess.ID, 5); err != nil || len(tail) != 0 || more {
		t.Fatalf("empty session: %v %v %v", tail, more, err)
	}
	if err := s.ImportHistory(ctx, sess.ID, turnsOf(20)); err != nil {
		t.Fatal(err)
	}
	// A reply still streaming: its text is in delta rows.
	m := message.Message{SessionID: sess.ID, Role: message.RoleAssistant}
	if err := s.CreateMessage(ctx, &m); err != nil {
		t.Fatal(err)
	}
	p := &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartText}
	if err := s.UpsertPart(ctx, p); err != nil {
		t.Fatal(err)
	}
	ts, err := s.NewTextStream(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	ts.Append("streamed so far")
	if err := ts.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	full, err := s.LoadHistory(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 7, 41, 100} {
		tail, more, err := s.LoadTail(ctx, sess.ID, n)
		if err != nil {
			t.Fatal(err)
		}
		want := full[max(0, len(full)-n):]
		if !reflect.DeepEqual(tail, want) {
			t.Errorf("n=%d: the tail is not the end of the history:\n got %+v\nwant %+v", n, tail, want)
		}
		if more != (n < len(full)) {
			t.Errorf("n=%d: more = %v with %d messages", n, more, len(full))
		}
	}
	if got := full[len(full)-1].Parts[0].Text; got != "streamed so far" {
		t.Errorf("the streaming part reads %q", got)
	}
	if _, err := ts.Finish(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestImportHistory: an imported history loads back as written and is
// searchable like one written part by part.
func TestImportHistory(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess := &message.Session{Title: "t"}
	if err := s.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	in := turnsOf(3)
	if err := s.ImportHistory(ctx, sess.ID, in); err != nil {
		t.Fatal(err)
	}
	got, err := s.LoadHistory(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 6 || len(got[5].Parts) != 3 || got[5].Parts[1].Tool.Output != "output 2" || got[4].Parts[0].Text != "question 2" {
		t.Fatalf("history = %+v", got)
	}
	for i := range in {
		if got[i].Message.ID != in[i].Message.ID {
			t.Errorf("message %d: id %s, want %s", i, got[i].Message.ID, in[i].Message.ID)
		}
	}
	hits, err := s.SearchSession(ctx, sess.ID, "output", 10)
	if err != nil || len(hits) != 3 {
		t.Errorf("search finds %d tool outputs (%v), want 3", len(hits), err)
	}
	if err := s.ImportHistory(ctx, "nope", in[:1]); err == nil {
		t.Error("import into a missing session succeeded")
	}
}
