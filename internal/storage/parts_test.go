package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

func TestMessageCRUD(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	w := watch(t, s)
	sess, _ := newSession(t, s, "/w")

	m := &message.Message{SessionID: sess.ID, Role: message.RoleAssistant, ParentID: "P", Model: "gpt",
		Summary: true, Synthetic: true}
	if err := s.CreateMessage(ctx, m); err != nil {
		t.Fatal(err)
	}
	if ev := w.next(t, func(ev message.Event) bool {
		return ev.Type == message.EventMessageUpdated && ev.Message.ID == m.ID
	}); ev.SessionID != sess.ID {
		t.Errorf("event session %s", ev.SessionID)
	}
	m.FinishReason, m.Error, m.CostUSD = "stop", "", 0.01
	m.Usage = message.Usage{Input: 5, Output: 6, Reasoning: 1, CachedInput: 2, CacheWrite: 3}
	m.FinishedAt = time.Unix(1_700_000_000, 123)
	if err := s.UpdateMessage(ctx, m); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetMessage(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, tm := range []*time.Time{&got.CreatedAt, &got.UpdatedAt, &got.FinishedAt, &m.CreatedAt, &m.UpdatedAt, &m.FinishedAt} {
		*tm = tm.UTC()
	}
	if !reflect.DeepEqual(got, m) {
		t.Errorf("GetMessage =\n%+v\nwant\n%+v", got, m)
	}
	list, err := s.ListMessages(ctx, sess.ID)
	if err != nil || len(list) != 2 || list[1].ID != m.ID {
		t.Errorf("ListMessages = %v, %v", list, err)
	}
	if err := s.CreateMessage(ctx, &message.Message{SessionID: "NOPE", Role: message.RoleUser}); !errors.Is(err, ErrNotFound) {
		t.Errorf("message in a missing session: %v", err)
	}
	if _, err := s.GetMessage(ctx, "NOPE"); !errors.Is(err, ErrNotFound) {
		t.Errorf("GetMessage(NOPE): %v", err)
	}
	if err := s.UpdateMessage(ctx, &message.Message{ID: "NOPE"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("UpdateMessage(NOPE): %v", err)
	}
}

func TestPartRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess, m := newSession(t, s, "/w")
	started := time.Unix(1_700_000_000, 5).UTC()
	tests := []message.Part{
		{Type: message.PartText, Text: "hello\nworld \"quoted\" ✓"},
		{Type: message.PartReasoning, Text: "thinking"},
		{Type: message.PartStepStart},
		{Type: message.PartTool, Tool: &message.ToolState{
			CallID: "call_1", Name: "bash", Status: message.ToolCompleted, Input: `{"command":"ls"}`,
			Output: "a\nb", Title: "ls", Metadata: map[string]any{"exit": 0.0}, Truncated: true,
			FullOutputPath: "/tmp/out", StartedAt: started, EndedAt: started.Add(time.Second),
		}},
		{Type: message.PartStepFinish, Step: &message.StepState{
			Usage: message.Usage{Input: 10, Output: 2}, CostUSD: 0.1, FinishReason: "tool_calls", Estimate: 9,
		}},
		{Type: message.PartCompaction, Compaction: &message.CompactionState{Auto: true, Reason: "overflow", Focus: "tests"}},
	}
	for i := range tests {
		tests[i].SessionID, tests[i].MessageID = sess.ID, m.ID
		if err := s.UpsertPart(ctx, &tests[i]); err != nil {
			t.Fatal(err)
		}
	}
	parts, err := s.ListParts(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != len(tests) {
		t.Fatalf("got %d parts, want %d", len(parts), len(tests))
	}
	for i := range parts {
		got, want := parts[i], tests[i]
		if !got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) {
			t.Errorf("part %d times %v/%v, want %v/%v", i, got.CreatedAt, got.UpdatedAt, want.CreatedAt, want.UpdatedAt)
		}
		got.CreatedAt, got.UpdatedAt, want.CreatedAt, want.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if got.Tool != nil {
			got.Tool.StartedAt, got.Tool.EndedAt = got.Tool.StartedAt.UTC(), got.Tool.EndedAt.UTC()
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("part %d (%s) =\n%+v\nwant\n%+v", i, want.Type, got, want)
		}
	}
}

func TestUpsertPartUpdatesInPlace(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess, m := newSession(t, s, "/w")
	w := watch(t, s)
	p := &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartTool,
		Tool: &message.ToolState{CallID: "c1", Name: "read", Status: message.ToolPending}}
	if err := s.UpsertPart(ctx, p); err != nil {
		t.Fatal(err)
	}
	id, created := p.ID, p.CreatedAt
	for _, status := range []message.ToolStatus{message.ToolRunning, message.ToolCompleted} {
		p.Tool.Status = status
		if err := s.UpsertPart(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if p.ID != id || !p.CreatedAt.Equal(created) {
		t.Errorf("upsert changed id or creation time")
	}
	var statuses []message.ToolStatus
	for range 3 {
		ev := w.next(t, ofType(message.EventPartUpdated))
		statuses = append(statuses, ev.Part.Tool.Status)
	}
	if !reflect.DeepEqual(statuses, []message.ToolStatus{message.ToolPending, message.ToolRunning, message.ToolCompleted}) {
		t.Errorf("events carried statuses %v", statuses)
	}
	// The event's part is a copy: changing ours later does not race with it.
	p.Tool.Status = message.ToolError
	parts, err := s.ListParts(ctx, sess.ID)
	if err != nil || len(parts) != 1 || parts[0].Tool.Status != message.ToolCompleted {
		t.Fatalf("ListParts = %+v, %v", parts, err)
	}
	if err := s.UpsertPart(ctx, &message.Part{Type: message.PartText}); err == nil {
		t.Error("a part without session and message was accepted")
	}
	if err := s.UpsertPart(ctx, &message.Part{SessionID: sess.ID, MessageID: "NOPE", Type: message.PartText}); err == nil {
		t.Error("a part of a missing message was accepted")
	}
}

func TestMarkCompacted(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess, m := newSession(t, s, "/w")
	var tools []*message.Part
	for range 3 {
		p := &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartTool,
			Tool: &message.ToolState{Name: "bash", Status: message.ToolCompleted, Output: "big output"}}
		if err := s.UpsertPart(ctx, p); err != nil {
			t.Fatal(err)
		}
		tools = append(tools, p)
	}
	text := &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartText, Text: "t"}
	if err := s.UpsertPart(ctx, text); err != nil {
		t.Fatal(err)
	}
	w := watch(t, s)
	at := time.Unix(1_700_000_000, 0)
	if err := s.MarkCompacted(ctx, []string{tools[0].ID, tools[2].ID}, at); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if ev := w.next(t, ofType(message.EventPartUpdated)); !ev.Part.Tool.CompactedAt.Equal(at) {
			t.Errorf("event part not compacted: %+v", ev.Part.Tool)
		}
	}
	parts, err := s.ListParts(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false, true} {
		if got := !parts[i].Tool.CompactedAt.IsZero(); got != want {
			t.Errorf("tool %d compacted = %v, want %v", i, got, want)
		}
		if parts[i].Tool.Output != "big output" {
			t.Errorf("tool %d output changed to %q", i, parts[i].Tool.Output)
		}
	}
	// One bad id rolls back the whole mark.
	err = s.MarkCompacted(ctx, []string{tools[1].ID, "NOPE"}, at)
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("error %v, want ErrNotFound", err)
	}
	if err := s.MarkCompacted(ctx, []string{text.ID}, at); err == nil {
		t.Error("a text part was marked compacted")
	}
	parts, _ = s.ListParts(ctx, sess.ID)
	if !parts[1].Tool.CompactedAt.IsZero() {
		t.Error("a failed MarkCompacted left a mark")
	}
}

func TestLoadHistory(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess := &message.Session{}
	if err := s.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	// Parts are written interleaved across messages; history groups them.
	var msgs []*message.Message
	for _, role := range []message.Role{message.RoleUser, message.RoleAssistant, message.RoleUser} {
		m := &message.Message{SessionID: sess.ID, Role: role}
		if err := s.CreateMessage(ctx, m); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	order := []int{0, 1, 1, 2, 1}
	for i, mi := range order {
		p := &message.Part{SessionID: sess.ID, MessageID: msgs[mi].ID, Type: message.PartText, Text: string(rune('a' + i))}
		if err := s.UpsertPart(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	stream, err := s.NewTextStream(ctx, &message.Part{SessionID: sess.ID, MessageID: msgs[2].ID, Type: message.PartText})
	if err != nil {
		t.Fatal(err)
	}
	stream.Append("streaming")
	if err := stream.Flush(ctx); err != nil {
		t.Fatal(err)
	}

	history, err := s.LoadHistory(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for i, e := range history {
		if e.Message.ID != msgs[i].ID {
			t.Errorf("entry %d is message %s, want %s", i, e.Message.ID, msgs[i].ID)
		}
		var texts []string
		for _, p := range e.Parts {
			texts = append(texts, p.Text)
		}
		got = append(got, texts)
	}
	want := [][]string{{"a"}, {"b", "c", "e"}, {"d", "streaming"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("history texts = %v, want %v", got, want)
	}
	if _, err := stream.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	if history, err := s.LoadHistory(ctx, "NOPE"); err != nil || len(history) != 0 {
		t.Errorf("history of a missing session = %v, %v", history, err)
	}
}

func TestDecodeStates(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		bad     int // index of an invalid state, or -1
		wantErr bool
	}{
		{"few, serial", 10, -1, false},
		{"many, parallel", 1500, -1, false},
		{"many, one invalid", 1500, 1234, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts := make([]message.Part, tt.n)
			states := make([][]byte, tt.n)
			for i := range parts {
				parts[i].ID = fmt.Sprint(i)
				states[i] = fmt.Appendf(nil, `{"text":"part %d"}`, i)
			}
			if tt.bad >= 0 {
				states[tt.bad] = []byte(`{"text":`)
			}
			err := decodeStates(parts, states)
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), "part 1234") {
					t.Fatalf("error %v, want one naming part 1234", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range parts {
				if p.Text != fmt.Sprintf("part %d", i) {
					t.Fatalf("part %d decoded as %q", i, p.Text)
				}
			}
		})
	}
}

// TestEncodeStateTextFastPath checks that a part with text alone is
// stored as the general encoding would store it.
func TestEncodeStateTextFastPath(t *testing.T) {
	for _, text := range []string{"", "hi", "<b> & \"q\" \\ \n\t\u2028 é \x01", strings.Repeat("x", 5000)} {
		p := &message.Part{ID: "p", Text: text}
		got, err := encodeState(p)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(partState{Text: text})
		if got != string(want) {
			t.Errorf("encodeState(%q) = %s, want %s", text, got, want)
		}
		var back message.Part
		if err := decodeState(&back, []byte(got)); err != nil || back.Text != text {
			t.Errorf("round trip of %q: %q, %v", text, back.Text, err)
		}
	}
}
