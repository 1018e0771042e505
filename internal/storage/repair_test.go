package storage

import (
	"context"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// crash drops a store as kill -9 would: no flush, no finish, no lease
// release. Only the in-process resources are stopped so the test leaks
// nothing.
func crash(t *testing.T, s *Store) {
	t.Helper()
	s.mu.Lock()
	s.closed = true
	for st := range s.streams {
		st.mu.Lock()
		st.done = true
		if st.timer != nil {
			st.timer.Stop()
		}
		st.mu.Unlock()
	}
	for l := range s.leases {
		close(l.stop)
		<-l.done
	}
	s.mu.Unlock()
	// Wait for a timer flush that may already be running.
	for st := range s.streams {
		st.flushMu.Lock()
		st.flushMu.Unlock()
	}
	s.events.Close()
	s.upsertPartStmt.Close()
	s.rdb.Close()
	s.db.Close()
}

func TestRepairAfterCrash(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	sess, m := newSession(t, s, "/w")
	finished := &message.Message{SessionID: sess.ID, Role: message.RoleAssistant, FinishReason: "stop", FinishedAt: time.Now()}
	if err := s.CreateMessage(ctx, finished); err != nil {
		t.Fatal(err)
	}
	var user = &message.Message{SessionID: sess.ID, Role: message.RoleUser}
	if err := s.CreateMessage(ctx, user); err != nil {
		t.Fatal(err)
	}
	withReason := &message.Message{SessionID: sess.ID, Role: message.RoleAssistant, FinishReason: "tool_calls"}
	if err := s.CreateMessage(ctx, withReason); err != nil {
		t.Fatal(err)
	}
	tool := func(status message.ToolStatus) *message.Part {
		p := &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartTool,
			Tool: &message.ToolState{CallID: string(status), Name: "bash", Status: status, Output: "done"}}
		if err := s.UpsertPart(ctx, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tool(message.ToolPending)
	tool(message.ToolRunning)
	tool(message.ToolCompleted)
	stream, err := s.NewTextStream(ctx, &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartText})
	if err != nil {
		t.Fatal(err)
	}
	stream.Append("persisted ")
	stream.Append("text")
	if err := stream.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	stream.Append(" lost in the crash")
	if _, err := s.AcquireLease(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	crash(t, s)

	// The next process: the dead owner's lease does not block it here, as
	// the owner is this very process; emulate its death by aging the lease.
	s = openAt(t, dir)
	if _, err := s.db.Exec(`UPDATE leases SET heartbeat_at = 1`); err != nil {
		t.Fatal(err)
	}
	lease, err := s.AcquireLease(ctx, sess.ID)
	if err != nil {
		t.Fatalf("acquire after crash: %v", err)
	}
	defer lease.Release()
	w := watch(t, s)
	r, err := s.RepairSession(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Repair{Tools: 2, Messages: 2, Streams: 1}); r != want {
		t.Errorf("Repair = %+v, want %+v", r, want)
	}
	for range r.Tools + r.Streams {
		w.next(t, ofType(message.EventPartUpdated))
	}
	for range r.Messages {
		w.next(t, ofType(message.EventMessageUpdated))
	}

	history, err := s.LoadHistory(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range history {
		switch e.Message.ID {
		case m.ID:
			if !e.Message.Finished() || e.Message.Error != InterruptedError {
				t.Errorf("open assistant message: finished %v, error %q", e.Message.Finished(), e.Message.Error)
			}
			for _, p := range e.Parts {
				switch {
				case p.Type == message.PartText:
					if p.Text != "persisted text" {
						t.Errorf("recovered text %q, want the flushed %q", p.Text, "persisted text")
					}
				case p.Tool.CallID == string(message.ToolCompleted):
					if p.Tool.Status != message.ToolCompleted || p.Tool.Output != "done" {
						t.Errorf("completed tool changed: %+v", p.Tool)
					}
				default:
					if p.Tool.Status != message.ToolError || p.Tool.Output != message.InterruptedOutput || p.Tool.EndedAt.IsZero() {
						t.Errorf("dangling tool %s not repaired: %+v", p.Tool.CallID, p.Tool)
					}
				}
			}
		case withReason.ID:
			if !e.Message.Finished() || e.Message.Error != "" {
				t.Errorf("message with a finish reason: finished %v, error %q", e.Message.Finished(), e.Message.Error)
			}
		case user.ID:
			if e.Message.Finished() {
				t.Error("a user message was finished by repair")
			}
		case finished.ID:
			if e.Message.Error != "" || !e.Message.FinishedAt.Equal(finished.FinishedAt.Round(0)) {
				t.Errorf("finished message changed: %+v", e.Message)
			}
		}
	}
	if rows := deltaRows(t, s, history[0].Parts[len(history[0].Parts)-1].ID); len(rows) != 0 {
		t.Errorf("delta rows left after repair: %q", rows)
	}
	if again, err := s.RepairSession(ctx, sess.ID); err != nil || !again.IsZero() {
		t.Errorf("second repair = %+v, %v; want nothing to do", again, err)
	}
}
